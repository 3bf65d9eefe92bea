//! Whether two texts are the same JSON value, so a result's
//! `structuredContent` is not sent twice when a text block already carries
//! it. Values compare as JSON.parse would read them: object keys in any
//! order (the last of a repeated key wins), numbers by value (`1.50` is
//! `1.5`, `1` is `1.0`), strings after escapes.
//!
//! serde_json parses; its recursion limit (128 levels) refuses deeper
//! texts, so no input can exhaust the stack. It refuses two things
//! JSON.parse reads, and both only make the texts "not the same" (the
//! structured content is then sent as its own text too): a lone surrogate
//! escape (`"\ud800"`) and a number beyond the f64 range (`1e400`).

use serde_json::Value;

/// True when both texts are JSON (surrounding whitespace allowed) of equal value.
pub fn same_value(a: &str, b: &str) -> bool {
    match (
        serde_json::from_str::<Value>(a),
        serde_json::from_str::<Value>(b),
    ) {
        (Ok(a), Ok(b)) => equal(&a, &b),
        _ => false,
    }
}

/// `Value`'s own `==` tells the integer `1` from the float `1.0`; JSON.parse
/// reads both as the number 1, so numbers compare by their f64 value here.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| equal(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| equal(a, b)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_value_whatever_the_layout() {
        assert!(same_value(
            r#"{"b": [1, 2.50, true, null], "a": "x"}"#,
            r#"{"a":"x","b":[1,2.5,true,null]}"#
        ));
        assert!(same_value(r#""caf\u00e9\n""#, "\"café\\n\""));
        assert!(same_value("1e2", "100"));
        assert!(same_value("1", "1.0"));
        assert!(same_value(r#"{"a":1,"a":2}"#, r#"{"a":2}"#));
        assert!(same_value("[]", " [ ] "));
        assert!(same_value(r#""\ud83d\ude00""#, "\"\u{1F600}\""));
    }

    #[test]
    fn different_values_or_not_json() {
        assert!(!same_value(r#"{"a":1}"#, r#"{"a":2}"#));
        assert!(!same_value(r#"{"a":1}"#, r#"{"a":1,"b":2}"#));
        assert!(!same_value(r#"{"a":1,"b":2}"#, r#"{"a":1,"c":2}"#));
        assert!(!same_value("[1,2]", "[2,1]"));
        assert!(!same_value(r#"{"a":1}"#, "Result: {\"a\":1}"));
        assert!(!same_value("1", "01"));
        assert!(!same_value("[1,]", "[1,]"));
        assert!(!same_value("\"a\u{1}\"", "\"a\u{1}\""));
        assert!(!same_value("{}", ""));
        assert!(!same_value("1 2", "1 2"));
        assert!(!same_value("-", "-"));
        assert!(!same_value("1.", "1."));
        assert!(!same_value("0", "false"));
        assert!(!same_value(r#""1""#, "1"));
    }

    #[test]
    fn deep_nesting_is_refused_not_a_crash() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert!(!same_value(&deep, &deep));
        let ok = "[".repeat(100) + &"]".repeat(100);
        assert!(same_value(&ok, &ok));
    }
}
