//! A rough token count for text, decocms' formula: a token per 4 characters,
//! and 1.5 tokens per CJK character (those scripts tokenize far less
//! densely). An estimate for budgeting, not any tokenizer's count.

/// The most one character (or UTF-16 unit) can add to [`estimate`]: a
/// text of `n` units whose `n * MOST_TOKENS_PER_CHAR` is within a whole
/// number cap is within it, uncounted.
pub const MOST_TOKENS_PER_CHAR: f64 = 1.5;

/// `ceil(other characters / 4) + ceil(CJK characters * 1.5)`, counting
/// Unicode scalar values.
pub fn estimate(text: &str) -> u64 {
    let (cjk, other) = text.chars().fold((0u64, 0u64), |(cjk, other), c| {
        if is_cjk(c) {
            (cjk + 1, other)
        } else {
            (cjk, other + 1)
        }
    });
    other.div_ceil(4) + (cjk * 3).div_ceil(2)
}

/// Han ideographs, kana, hangul, bopomofo, and the CJK punctuation and
/// full-width forms written with them.
pub fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x1100..=0x11FF       // Hangul Jamo
        | 0x2E80..=0x2FDF     // CJK radicals, Kangxi radicals
        | 0x3000..=0x303F     // CJK symbols and punctuation
        | 0x3040..=0x30FF     // Hiragana, Katakana
        | 0x3100..=0x312F     // Bopomofo
        | 0x3130..=0x318F     // Hangul compatibility Jamo
        | 0x31A0..=0x31FF     // Bopomofo extended, CJK strokes, Katakana extension
        | 0x3200..=0x4DBF     // enclosed CJK, compatibility, extension A
        | 0x4E00..=0x9FFF     // CJK unified ideographs
        | 0xA960..=0xA97F     // Hangul Jamo extended-A
        | 0xAC00..=0xD7FF     // Hangul syllables, Jamo extended-B
        | 0xF900..=0xFAFF     // CJK compatibility ideographs
        | 0xFE30..=0xFE4F     // CJK compatibility forms
        | 0xFF00..=0xFFEF     // half-width and full-width forms
        | 0x20000..=0x3134F // supplementary ideographic planes
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formula() {
        assert_eq!(estimate(""), 0);
        assert_eq!(estimate("abc"), 1);
        assert_eq!(estimate("abcd"), 1);
        assert_eq!(estimate("abcde"), 2);
        // 3 CJK: ceil(4.5) = 5; plus ceil(2 / 4) = 1.
        assert_eq!(estimate("日本語ab"), 6);
        assert_eq!(estimate("한"), 2);
        assert_eq!(estimate("ひらがな"), 6);
        // An emoji is one character, not CJK.
        assert_eq!(estimate("\u{1F600}"), 1);
        assert_eq!(estimate(&"x".repeat(100_000)), 25_000);
    }

    #[test]
    fn no_text_costs_more_than_its_length_says() {
        for text in [
            "",
            "a",
            "日",
            "日本",
            "日本語",
            "日a",
            "\u{20000}",
            "abcde日本語",
            "한국어 텍스트",
        ] {
            let units = text.encode_utf16().count() as f64;
            let most = (units * MOST_TOKENS_PER_CHAR).ceil() as u64;
            assert!(
                estimate(text) <= most,
                "{text:?}: {} > {most}",
                estimate(text)
            );
        }
    }
}
