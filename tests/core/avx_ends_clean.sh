#!/bin/sh
# Every function of the shipped library that touches a 256- or 512-bit
# register must also execute vzeroupper (before it returns or calls out):
# legacy SSE code after dirty upper halves runs slowly (the own deflate's
# tokenizer took 20% longer after an AVX2 filter without one). GCC usually
# inserts it, but not always. $1: the library. 77 (skipped): no objdump.
command -v objdump >/dev/null 2>&1 || exit 77
objdump -d --no-show-raw-insn "$1" > avx_ends_clean.txt || exit 1
awk '
function done_fn() { if (f != "" && wide && !clean) { print "no vzeroupper: " f; bad = 1 } }
/^[0-9a-f]+ <.*>:$/ { done_fn(); f = $2; wide = 0; clean = 0; n++ }
/%[yz]mm[0-9]/      { wide = 1 }
/vzeroupper/        { clean = 1 }
END { done_fn()
      if (n == 0) { print "no functions read"; exit 1 }
      exit bad }' avx_ends_clean.txt
