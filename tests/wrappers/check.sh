#!/bin/bash
# The compiler wrappers (xshmem-cc, xshmem-c++), pkg-config, the CMake package and xshmem-run's
# options, as users meet them (tests/wrappers/CMakeLists.txt lists the entries).
#
#   check.sh program <cc|c++> <bin dir> <source> <work dir>
#       builds <source> with <bin dir>/xshmem-<cc|c++> (C11 or C++11, warnings are errors; C in
#       two steps, -c then link), checks what the program links (libxshmem, never libcuda; an
#       rpath to libxshmem's folder) and runs it as 2 PEs: <bin dir>/xshmem-run -np 2, no
#       LD_LIBRARY_PATH
#   check.sh showme <bin dir> <pkgconfig dir>
#       --showme:compile and --showme:link of both wrappers equal pkg-config --cflags and --libs
#       xshmem (modulo whitespace); --showme, -c, XSHMEM_CC/XSHMEM_CXX, a bad --showme:
#   check.sh installed <prefix> <source> <work dir>
#       the same equality against the prefix's xshmem.pc (paths compared after realpath), a
#       program built by the installed xshmem-cc and run by the installed xshmem-run, and the
#       wrapper's prefix found from its own location (a copy elsewhere, a symlink to it)
#   check.sh cmake <prefix> <consumer project> <source> <work dir>
#       configures, builds and runs (2 PEs) a project that uses find_package(xshmem) and
#       xshmem::xshmem against the prefix only
#   check.sh run <xshmem-run>
#       -np N, --np N and -n N start N PEs (after a flag too); -np after the program is the
#       program's; a usage error (unknown option, bad or missing value, no program) is one line
#       and status 2
set -u
mode=$1
shift
fail() {
  echo "wrappers.$mode: FAIL: $*"
  exit 1
}
say() { echo "wrappers.$mode: $*"; }
unset LD_LIBRARY_PATH XSHMEM_PLUGIN_PATH XSHMEM_CC XSHMEM_CXX
# CPU PEs (globals are symmetric on host heaps only), on GPU machines too.
export XSHMEM_TRANSPORTS=${XSHMEM_TRANSPORTS:-hostshm} XSHMEM_SYMMETRIC_SIZE=${XSHMEM_SYMMETRIC_SIZE:-16M}
export XSHMEM_HEAP=${XSHMEM_HEAP:-host}

# words <string>: the words, single-spaced (whitespace differences do not count).
words() {
  local w
  read -ra w <<<"$1"
  echo "${w[*]}"
}

# real_paths <flags>: the flags with the path of each -I, -L and -Wl,-rpath, put through realpath.
real_paths() {
  local w out=()
  for w in $1; do
    case $w in
      -I* | -L*) out+=("${w:0:2}$(realpath -m "${w:2}")") ;;
      -Wl,-rpath,*) out+=("-Wl,-rpath,$(realpath -m "${w#-Wl,-rpath,}")") ;;
      *) out+=("$w") ;;
    esac
  done
  echo "${out[*]}"
}

# links_right <executable> <libdir>: libxshmem, no libcuda (neither the program nor the
# libxshmem of <libdir>: programs start without a GPU driver), RUNPATH (or RPATH) has <libdir>.
links_right() {
  local dyn
  dyn=$(readelf -d "$1") || fail "readelf -d $1"
  grep -q 'NEEDED.*\[libxshmem\.so\.' <<<"$dyn" || fail "$1 does not need libxshmem: $dyn"
  if grep -q 'NEEDED.*libcuda' <<<"$dyn"; then fail "$1 needs libcuda"; fi
  if readelf -d "$2/libxshmem.so" | grep -q 'NEEDED.*libcuda'; then
    fail "$2/libxshmem.so needs libcuda"
  fi
  local rp
  rp=$(sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' <<<"$dyn")
  case ":$rp:" in
    *":$2:"*) ;;
    *) fail "$1 has RUNPATH '$rp', without $2" ;;
  esac
  say "$(basename "$1"): needs $(sed -n 's/.*NEEDED.*\[\(libxshmem[^]]*\)\].*/\1/p' <<<"$dyn"), RUNPATH $rp"
}

# run2 <xshmem-run> <program> <name>: 2 PEs, both print "<name>: pe K of 2: ok".
run2() {
  local out rc
  out=$(timeout 60 "$1" -np 2 --timeout 50 "$2" 2>&1)
  rc=$?
  echo "$out"
  [ $rc = 0 ] || fail "$1 -np 2 $2 exited $rc"
  for k in 0 1; do
    grep -q "^\[pe $k\] $3: pe $k of 2: ok$" <<<"$out" || fail "pe $k did not say ok"
  done
}

case $mode in
  program)
    lang=$1 bin=$2 src=$3 work=$4
    wrapper=$bin/xshmem-$lang
    rm -rf "$work"
    mkdir -p "$work"
    exe=$work/osh_hello
    if [ "$lang" = cc ]; then
      # Compile only: no link flags (gcc would warn "linker input file unused"), then link.
      err=$("$wrapper" -std=c11 -Wall -Wextra -Werror -c "$src" -o "$work/osh_hello.o" 2>&1) ||
        fail "$wrapper -c failed: $err"
      [ -z "$err" ] || fail "$wrapper -c said: $err"
      "$wrapper" "$work/osh_hello.o" -o "$exe" || fail "$wrapper (link) failed"
      name=osh_hello
    else
      "$wrapper" -std=c++11 -Wall -Wextra -Werror "$src" -o "$exe" || fail "$wrapper failed"
      name=osh_hello++
    fi
    say "built $exe with $wrapper"
    links_right "$exe" "$("$wrapper" --showme:libdirs)"
    (cd / && run2 "$bin/xshmem-run" "$exe" "$name") || exit 1
    ;;

  showme)
    bin=$1
    export PKG_CONFIG_PATH=$2
    cflags=$(pkg-config --cflags xshmem) || fail "pkg-config --cflags xshmem"
    libs=$(pkg-config --libs xshmem) || fail "pkg-config --libs xshmem"
    say "pkg-config --cflags: $cflags"
    say "pkg-config --libs:   $libs"
    for w in xshmem-cc xshmem-c++; do
      compile=$("$bin/$w" --showme:compile) link=$("$bin/$w" --showme:link)
      [ "$(words "$compile")" = "$(words "$cflags")" ] ||
        fail "$w --showme:compile '$compile' differs from pkg-config --cflags '$cflags'"
      [ "$(words "$link")" = "$(words "$libs")" ] ||
        fail "$w --showme:link '$link' differs from pkg-config --libs '$libs'"
      cmd=cc
      [ $w = xshmem-c++ ] && cmd=c++
      [ "$("$bin/$w" --showme:command)" = $cmd ] || fail "$w --showme:command is not $cmd"
      [ "$("$bin/$w" --showme)" = "$cmd $compile $link" ] ||
        fail "$w --showme: '$("$bin/$w" --showme)'"
      [ "$("$bin/$w" --showme a.c -o a)" = "$cmd $compile a.c -o a $link" ] ||
        fail "$w --showme a.c -o a: '$("$bin/$w" --showme a.c -o a)'"
      [ "$("$bin/$w" --showme -c a.c)" = "$cmd $compile -c a.c" ] ||
        fail "$w --showme -c a.c (compile only, no link flags): '$("$bin/$w" --showme -c a.c)'"
      say "$w --showme: $("$bin/$w" --showme a.c -o a)"
      # The compiler from the environment, split on blanks, run with the flags (echo stands in).
      var=XSHMEM_CC
      [ $w = xshmem-c++ ] && var=XSHMEM_CXX
      got=$(env "$var=echo MYCC" "$bin/$w" 'a b.c' -o a) || fail "$var=echo MYCC $w failed"
      [ "$got" = "MYCC $compile a b.c -o a $link" ] || fail "$var=echo MYCC $w 'a b.c' -o a: '$got'"
      [ "$(env "$var=my cc" "$bin/$w" --showme:command)" = "my cc" ] || fail "$var: --showme:command"
      err=$("$bin/$w" --showme:nonsense 2>&1)
      rc=$?
      if [ $rc != 2 ] || [ "$(wc -l <<<"$err")" != 1 ]; then
        fail "--showme:nonsense: status $rc, '$err'"
      fi
    done
    say "ok"
    ;;

  installed)
    prefix=$1 src=$2 work=$3
    pcdir=""
    for d in "$prefix"/lib/pkgconfig "$prefix"/lib/*/pkgconfig; do
      [ -e "$d/xshmem.pc" ] && pcdir=$d && break
    done
    [ -n "$pcdir" ] || fail "no pkgconfig/xshmem.pc under $prefix/lib"
    export PKG_CONFIG_PATH=$pcdir
    for w in xshmem-cc xshmem-c++; do
      [ -x "$prefix/bin/$w" ] || fail "$prefix/bin/$w is not installed"
      a=$(real_paths "$("$prefix/bin/$w" --showme:compile)") b=$(real_paths "$(pkg-config --cflags xshmem)")
      [ "$a" = "$b" ] || fail "installed $w --showme:compile '$a', pkg-config --cflags '$b'"
      a=$(real_paths "$("$prefix/bin/$w" --showme:link)") b=$(real_paths "$(pkg-config --libs xshmem)")
      [ "$a" = "$b" ] || fail "installed $w --showme:link '$a', pkg-config --libs '$b'"
    done
    say "installed xshmem-cc --showme:compile/:link = pkg-config: $a"
    rm -rf "$work"
    mkdir -p "$work"
    "$prefix/bin/xshmem-cc" -std=c11 -Wall -Wextra -Werror "$src" -o "$work/osh_hello" ||
      fail "the installed xshmem-cc failed"
    links_right "$work/osh_hello" "$("$prefix/bin/xshmem-cc" --showme:libdirs)"
    (cd / && run2 "$prefix/bin/xshmem-run" "$work/osh_hello" osh_hello) || exit 1
    # The prefix comes from the wrapper's own location: a copy in another "prefix" names that one;
    # a symlink to the installed wrapper names the installed prefix.
    mkdir -p "$work/moved/bin" "$work/links"
    cp "$prefix/bin/xshmem-cc" "$work/moved/bin/"
    moved=$(cd "$work/moved" && pwd -P)
    inc=$(realpath --relative-to="$prefix" "$(pkg-config --variable=includedir xshmem)")
    [ "$("$work/moved/bin/xshmem-cc" --showme:incdirs)" = "$moved/$inc" ] ||
      fail "a copy in $moved/bin says incdirs '$("$work/moved/bin/xshmem-cc" --showme:incdirs)'"
    ln -sf "$prefix/bin/xshmem-cc" "$work/links/xshmem-cc"
    [ "$("$work/links/xshmem-cc" --showme:incdirs)" = "$(realpath "$prefix")/$inc" ] ||
      fail "a symlink to the installed wrapper says '$("$work/links/xshmem-cc" --showme:incdirs)'"
    say "relocatable: a copy in $moved/bin says -I$moved/$inc"
    say "ok"
    ;;

  cmake)
    prefix=$1 project=$2 src=$3 work=$4
    rm -rf "$work"
    "${CMAKE:-cmake}" -S "$project" -B "$work" -DCMAKE_PREFIX_PATH="$prefix" -DOSH_SOURCE="$src" \
      -DCMAKE_BUILD_TYPE=Release >"$work.log" 2>&1 || { cat "$work.log"; fail "configure failed"; }
    "${CMAKE:-cmake}" --build "$work" >>"$work.log" 2>&1 || { cat "$work.log"; fail "build failed"; }
    dir=$(sed -n 's/^xshmem_DIR:PATH=//p' "$work/CMakeCache.txt")
    case $(realpath -m "$dir") in
      "$(realpath "$prefix")"/*) ;;
      *) fail "find_package(xshmem) took '$dir', not the package under $prefix" ;;
    esac
    say "find_package(xshmem) found $dir"
    libdir=$(realpath "$dir/../..")
    links_right "$work/osh_hello" "$libdir"
    while read -r w; do
      [ -x "$w" ] || fail "xshmem_CC/xshmem_CXX name $w, which is not an executable"
    done <"$work/wrappers.txt"
    (cd / && run2 "$prefix/bin/xshmem-run" "$work/osh_hello" osh_hello) || exit 1
    say "ok"
    ;;

  run)
    run=$1
    for np in "-np 2" "--np 2" "-n 2" "--np=2" "-n2"; do
      # shellcheck disable=SC2086  # the option and its value are two words, or one
      out=$("$run" $np --timeout 30 echo hi 2>&1) || fail "xshmem-run $np echo hi failed: $out"
      [ "$(grep -c '^\[pe [01]\] hi$' <<<"$out")" = 2 ] || fail "xshmem-run $np echo hi: '$out'"
    done
    # A flag before -np does not take it for its value.
    out=$("$run" --no-prefix -np 2 echo hi 2>&1) || fail "xshmem-run --no-prefix -np 2: $out"
    [ "$(grep -c '^hi$' <<<"$out")" = 2 ] || fail "xshmem-run --no-prefix -np 2 echo hi: '$out'"
    out=$("$run" -np 1 echo -np 3 --bogus 2>&1) || fail "xshmem-run -np 1 echo -np 3 --bogus: $out"
    [ "$out" = "[pe 0] -np 3 --bogus" ] || fail "the program's own -np and --bogus: '$out'"
    out=$("$run" -np 1 -- echo x 2>&1)
    [ "$out" = "[pe 0] x" ] || fail "-- before the program: '$out'"
    say "-np N, --np N, -n N, --np=N, -nN start N PEs; words after the program are its own"
    # Usage errors: one line on stderr, status 2, nothing started.
    while IFS='|' read -r args want; do
      # shellcheck disable=SC2086
      err=$("$run" $args 2>&1 >/dev/null)
      rc=$?
      [ $rc = 2 ] || fail "xshmem-run $args: status $rc, expected 2 ($err)"
      [ "$(wc -l <<<"$err")" = 1 ] || fail "xshmem-run $args: not one line: '$err'"
      grep -Eq "^xshmem-run: $want; usage: xshmem-run -n N \[options\] prog args\.\.\. " <<<"$err" ||
        fail "xshmem-run $args: '$err' does not match '$want'"
      say "xshmem-run $args -> $err"
    done <<'EOF'
-np 2 --bogus echo x|unknown option '--bogus'
--bogus -np 2 echo x|unknown option '--bogus'
-np 2 -x echo x|unknown option '-x'
-np 2 --bogus=3 echo x|unknown option '--bogus=3'
-np|.*--np.*
-np two echo x|.*two.*
-np 0 echo x|.*0.*
echo x|.*--np.*required.*
-np 2|no program given
-np 2 --timeout|.*--timeout.*
EOF
    out=$("$run" --help 2>&1)
    grep -q -- "-np N" <<<"$out" || fail "--help does not mention -np: $out"
    say "ok"
    ;;

  *)
    fail "unknown mode (program, showme, installed, cmake, run)"
    ;;
esac
