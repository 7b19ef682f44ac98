#!/usr/bin/env bash
# SEC-03: builds the libFuzzer harnesses (tests/fuzz/engine) with clang into <build dir>; the CTest
# entry fuzz.build runs it, and every fuzz.SEC-03.<name> entry needs it.
#   build_fuzz.sh <source root> <build dir>
# Exits 77 (CTest: skipped) with the reason when clang++ or libFuzzer is missing, and leaves the
# reason in <build dir>/SKIPPED for the harness entries to print; exits 1 when the build fails.
set -uo pipefail
src=$1 out=$2
mkdir -p "$out"
rm -f "$out/SKIPPED"
skip() {
  echo "fuzz.build: skipped: $*" | tee "$out/SKIPPED"
  exit 77
}
cxx=${XSHMEM_FUZZ_CXX:-clang++}
command -v "$cxx" >/dev/null ||
  skip "$cxx not found (scripts/install-deps.sh installs clang and libclang-rt-14-dev)"
probe="$out/probe"
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long) { return 0; }\n' \
  >"$probe.cc"
"$cxx" -fsanitize=fuzzer,address,undefined "$probe.cc" -o "$probe" 2>"$probe.log" ||
  skip "$cxx cannot link -fsanitize=fuzzer,address,undefined (install libclang-rt-14-dev, which" \
    "ships libFuzzer and the sanitizer runtimes): $(head -c 300 "$probe.log")"
cc=${cxx/clang++/clang}
command -v "$cc" >/dev/null || cc=cc
cmake -S "$src/tests/fuzz/engine" -B "$out" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
  -DXSHMEM_SOURCE_DIR="$src" >"$out/configure.log" 2>&1 || {
  cat "$out/configure.log"
  echo "fuzz.build: configuring $src/tests/fuzz/engine failed"
  exit 1
}
cmake --build "$out" -j"${XSHMEM_FUZZ_JOBS:-2}" || {
  echo "fuzz.build: building the harnesses failed"
  exit 1
}
echo "fuzz.build: harnesses in $out/bin: $(cd "$out/bin" && ls | tr '\n' ' ')"
