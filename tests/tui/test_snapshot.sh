#!/usr/bin/env bash
# `cgplan tui --snapshot`: golden frames of both K3 presets at 80x24 and 160x48 in both glyph
# sets (CGPLAN_UPDATE_GOLDEN=1 rewrites them), the frame's shape, --keys, and usage errors.
source "$CGPLAN_TESTLIB"
GOLDEN="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/golden"
export LC_ALL=

for preset in k3-dp16 k3-dp2-dcp8; do
  for size in 80x24 160x48; do
    for glyphs in utf8 ascii; do
      db="$TEST_TMP/golden-$preset-$size-$glyphs.db" # a fresh, seeded store: the same every time
      if [ "$glyphs" = ascii ]; then
        expect_exit 0 env LANG=C.UTF-8 "$CGPLAN" tui --snapshot "$size" --preset "$preset" --db "$db" --ascii
      else
        expect_exit 0 env LANG=C.UTF-8 "$CGPLAN" tui --snapshot "$size" --preset "$preset" --db "$db"
      fi
      file="$GOLDEN/$preset-$size-$glyphs.txt"
      if [ "${CGPLAN_UPDATE_GOLDEN:-0}" = 1 ]; then
        printf '%s\n' "$OUT" > "$file"
      fi
      if [ -f "$file" ] && [ "$(cat "$file")" = "$OUT" ]; then pass; else
        fail "$preset $size $glyphs differs from $file (CGPLAN_UPDATE_GOLDEN=1 to accept):"
        diff <(cat "$file" 2>/dev/null) <(printf '%s\n' "$OUT") | head -20 >&2
      fi
      w=${size%x*}; h=${size#*x}
      printf '%s\n' "$OUT" | python3 -c "
import sys
rows = sys.stdin.read().split('\n')[:-1]
assert len(rows) == $h, len(rows)
assert all(len(r) <= $w for r in rows), max(len(r) for r in rows)
ascii = '$glyphs' == 'ascii'
assert not ascii or all(ord(c) < 128 for r in rows for c in r)
totals = [r for r in rows if r.lstrip(' |+-=\u2500\u2502\u250c\u2510\u2514\u2518').split()[:1] == ['total']]
assert len(totals) == 1, totals
" && pass || fail "$preset $size $glyphs: frame shape"
    done
  done
done

# LANG=C without --ascii: the ASCII glyphs too
expect_exit 0 env LANG=C "$CGPLAN" tui --snapshot 80x24 --db "$TEST_TMP/c.db"
printf '%s' "$OUT" | LC_ALL=C grep -q '[^ -~]' && fail "LANG=C snapshot has non-ASCII" || pass

# --keys: the same as the estimate after two steps and a typed dispatch
expect_exit 0 env LANG=C.UTF-8 "$CGPLAN" tui --snapshot 120x40 --db "$TEST_TMP/k.db" --keys "Right Right Down Down Down = 2 5 6 Enter"
want=$("$CGPLAN" estimate --preset k3-dp16 --set max_bs=28 --set max_dispatch=256 --format json --db "$TEST_TMP/k.db" |
  python3 -c 'import json,sys; print("total %.2f GiB" % (json.load(sys.stdin)["total_bytes"]/2**30))')
contains "$OUT" " $want" "snapshot total after keys"
# the default command with options only
expect_exit 0 env LANG=C.UTF-8 "$CGPLAN" --snapshot 80x24 --preset k3-dp2-dcp8 --db "$TEST_TMP/k.db"
contains "$OUT" "k3-dp2-dcp8" "cgplan --preset P opens the planner"
# too small
expect_exit 0 "$CGPLAN" tui --snapshot 30x10 --db "$TEST_TMP/k.db"
contains "$OUT" "60x20" "too-small snapshot names the size needed"

# usage errors: exit 2, one line
for bad in 80 80x 0x24 axb 80x24x1 -5x10; do
  expect_exit 2 "$CGPLAN" tui --snapshot "$bad" --db "$TEST_TMP/k.db"
  one_line "$ERR" "bad WxH $bad"
done
expect_exit 2 "$CGPLAN" tui --snapshot 80x24 --keys "Right Sideways" --db "$TEST_TMP/k.db"
one_line "$ERR" "unknown key"
contains "$ERR" "Sideways" "the error names the key"
expect_exit 2 "$CGPLAN" tui --snapshot 80x24 --preset no-such-preset --db "$TEST_TMP/k.db"
one_line "$ERR" "unknown preset"
expect_exit 2 "$CGPLAN" tui --bogus
finish
