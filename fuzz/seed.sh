#!/usr/bin/env bash
# Seed corpora for every target from the vendored sample files
# (__test__/fixtures/file-type) into fuzz/corpus/<target>/ (git-ignored).
# Each target's control bytes are put in front of the file (see the target's
# doc comment for its input layout). Safe to run again: files are named by
# content hash, so nothing is duplicated.
set -euo pipefail

cd "$(dirname "$0")"
fixtures=../__test__/fixtures/file-type
corpus=corpus

# put <target> <file>: store stdin under its hash.
put() {
  local dir="$corpus/$1" tmp
  mkdir -p "$dir"
  tmp=$(mktemp "$dir/.seed.XXXXXX")
  cat >"$tmp"
  mv "$tmp" "$dir/$(sha1sum "$tmp" | cut -c1-40)"
}

# Index of a declared type in DECLARED (fuzz/src/lib.rs) for a file name.
declared_index() {
  case "$1" in
    *.png | *.apng) echo 2 ;;
    *.jpg) echo 3 ;;
    *.gif) echo 5 ;;
    *.webp) echo 6 ;;
    *.pdf) echo 7 ;;
    *.bmp) echo 11 ;;
    *.xml) echo 16 ;;
    *.vtt | *.ics | *.vcf | *.reg) echo 13 ;;
    *) echo 19 ;; # application/octet-stream
  esac
}

octal() { printf '\\%03o' "$1"; }

count=0
for file in "$fixtures"/fixture*; do
  name=$(basename "$file")
  # sniff: the bytes as they are.
  put sniff <"$file"
  # text: declared textual or not.
  { printf '\000'; cat "$file"; } | put text
  { printf '\001'; cat "$file"; } | put text
  # base64: plain canonical, and wrapped in CRLF lines of 76.
  { printf '\000\000\000\000\000\000'; base64 -w0 "$file"; } | put base64
  { printf '\006\000\000\113\000\000'; base64 -w0 "$file"; } | put base64
  # route: declared as its own type and as octet-stream, bytes then base64
  # text (flag 0x10), no growth.
  idx=$(declared_index "$name")
  { printf "$(octal "$idx")"'\000\000\000\000\000\000\000\000\000'; cat "$file"; } | put route
  { printf '\023\003\004\000\000\000\000\000\000\000'; cat "$file"; } | put route
  { printf "$(octal "$idx")"'\020\000\000\000\000\000\000\000\000'; base64 -w0 "$file"; } | put route
  count=$((count + 1))
done

# store: extensions and planted names, valid and not (mode byte, type byte,
# name, newline, data).
for name in png tar.gz "" .png ../x a..b x. "$(printf 'a%.0s' {1..33})" \
  tool_1764481234567_000042_0000012345.png tool_1764481234567_000042_0000012345 \
  .tool_tmp_0000012345_00000000000000000042_123456789 tool_1764481234567_00042_0000012345.png; do
  for mode in 0 1 2 3 4; do
    { printf "$(octal "$mode")"'\002%s\n' "$name"; printf 'data'; } | put store
  done
done

echo "seeded from $count sample files: $(for t in "$corpus"/*; do printf '%s %s  ' "$(basename "$t")" "$(ls "$t" | wc -l)"; done)"
