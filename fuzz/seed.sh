#!/usr/bin/env bash
# Seed corpora for every target from the vendored sample files
# (__test__/fixtures/file-type) into fuzz/corpus/<target>/ (git-ignored).
# Each target's control bytes are put in front of the file (see the target's
# doc comment for its input layout). Seeds are named seed-<file>-<variant>,
# apart from libFuzzer's own hash names, so running this again overwrites
# them instead of adding copies.
set -euo pipefail

cd "$(dirname "$0")"
fixtures=../__test__/fixtures/file-type
corpus=corpus
mkdir -p "$corpus"/{sniff,text,base64,route,store,gif,png,jpeg,webp}

# Index of a declared type in DECLARED (fuzz/src/lib.rs) for a file name,
# as an octal escape for printf.
declared_index() {
  local index
  case "$1" in
    *.png | *.apng) index=2 ;;
    *.jpg) index=3 ;;
    *.gif) index=5 ;;
    *.webp) index=6 ;;
    *.pdf) index=7 ;;
    *.bmp) index=11 ;;
    *.xml) index=16 ;;
    *.vtt | *.ics | *.vcf | *.reg) index=13 ;;
    *) index=19 ;; # application/octet-stream
  esac
  printf -v declared '\\%03o' "$index"
}

count=0
for file in "$fixtures"/fixture*; do
  seed=seed-${file##*/}
  # sniff: the bytes as they are; gif, png, webp: the image as it is.
  cp "$file" "$corpus/sniff/$seed"
  case "$file" in *.gif) cp "$file" "$corpus/gif/$seed" ;; esac
  case "$file" in *.png | *.apng) cp "$file" "$corpus/png/$seed" ;; esac
  case "$file" in *.webp) cp "$file" "$corpus/webp/$seed" ;; esac
  # jpeg: a JPEG at each scale (the control byte first).
  case "$file" in *.jpg) for scale in 000 001 002; do
    { printf "\\$scale"; cat "$file"; } >"$corpus/jpeg/$seed-$scale"
  done ;; esac
  # text: declared binary, textual, textual in Shift_JIS, in UTF-16LE.
  for flags in 000 001 003 011; do
    { printf "\\$flags"; cat "$file"; } >"$corpus/text/$seed-$flags"
  done
  # base64: plain canonical, and wrapped in CRLF lines of 76.
  encoded=$(base64 -w0 "$file")
  printf '\000\000\000\000\000\000%s' "$encoded" >"$corpus/base64/$seed-0"
  printf '\006\000\000\113\000\000%s' "$encoded" >"$corpus/base64/$seed-1"
  # route: declared as its own type and as octet-stream, the bytes; then
  # the base64 text itself (flag 0x10). No growth.
  declared_index "$file"
  { printf "$declared"'\000\000\000\000\000\000\000\000\000'; cat "$file"; } >"$corpus/route/$seed-0"
  { printf '\023\003\004\000\000\000\000\000\000\000'; cat "$file"; } >"$corpus/route/$seed-1"
  printf "$declared"'\020\000\000\000\000\000\000\000\000%s' "$encoded" >"$corpus/route/$seed-2"
  count=$((count + 1))
done

# webp: the lossless WebPs libwebp made for the walk's tests (every
# transform, colour caches, entropy images).
for file in ../__test__/fixtures/webp-lossless/*.webp; do
  cp "$file" "$corpus/webp/seed-${file##*/}"
done

# store: extensions and planted names, valid and not (mode byte, type byte,
# name, newline, data).
for name in png tar.gz "" .png ../x a..b x. "$(printf 'a%.0s' {1..33})" \
  tool_1764481234567_000042_0000012345.png tool_1764481234567_000042_0000012345 \
  .tool_tmp_0000012345_00000000000000000042_123456789 tool_1764481234567_00042_0000012345.png; do
  for mode in 0 1 2 3 4; do
    printf -v mode_byte '\\%03o' "$mode"
    printf "$mode_byte"'\002%s\ndata' "$name" >"$corpus/store/seed-$mode-${name//\//_}"
  done
done

echo "seeded fuzz/$corpus/<target>/ from $count sample files"
