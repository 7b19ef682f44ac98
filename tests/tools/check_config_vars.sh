#!/usr/bin/env bash
# The code reads no XSHMEM_* variable that the configuration table lacks (issue 5 acceptance).
#   check_config_vars.sh <source root> <xshmem-info> <xt_json_check>
# Scans core/, backends/, bootstrap/, plugins/, tools/ and device/ (never tests/ or docs/) for
# variable names used as configuration: the first argument of getenv/setenv/unsetenv, of the
# config getters (config::get_*, the services table's config_get_*, cfg_* wrappers) and of the
# config entry tables ({"XSHMEM_...", XSHMEM_CONFIG_...}); a constant argument (kEnvSize) is
# resolved through its definition in the same file. Then compares with `xshmem-info --env --json`
# (core entries plus those of every plugin it loaded):
#   - a name read in core/, plugins/, tools/, device/, or in the folder of a loaded plugin
#     (backends/<name>, bootstrap/<name>) must be listed by xshmem-info;
#   - a name read in the folder of a plugin this build did not produce (nvlink without CUDA, say)
#     must at least be declared in a config entry table of that folder.
# Exits 1 naming every unlisted variable and the file that reads it.
set -euo pipefail
root=$1 info=$2 jcheck=$3
perl -e 1 || { echo "check_config_vars: perl is needed" >&2; exit 2; }

listing=$(XSHMEM_LOG_LEVEL=error "$info" --env --plugins --json | "$jcheck" --require env,plugins --print-vars)
listed=$(awk '$1 == "var" { print $2 }' <<<"$listing" | sort -u)
loaded=$(awk '$1 == "plugin" { print $2 "/" $3 }' <<<"$listing" | sort -u)
echo "xshmem-info lists $(wc -l <<<"$listed") variables; loaded plugins: $(tr '\n' ' ' <<<"$loaded")"

# perl prints "<file> read|declared <NAME>" for every use in one file.
extract='
  undef $/; my $t = <>; my $f = $ARGV;
  $t =~ s{//[^\n]*}{}g;  # line comments (names in comments are not reads)
  my %const;
  while ($t =~ /\b(k\w+)\s*(?:\[\])?\s*=\s*"(XSHMEM_[A-Z0-9_]+)"/g) { $const{$1} = $2; }
  my $fn = qr/(?:getenv|secure_getenv|setenv|unsetenv|get_string|get_int|get_size|get_bool|get_duration_ms|get_enum|get_list|get_list_spec|config_get_string|config_get_int|cfg_\w+)/;
  while ($t =~ /\b$fn\s*\(\s*"(XSHMEM_[A-Z0-9_]+)"/g) { print "$f read $1\n"; }
  while ($t =~ /\b$fn\s*\(\s*(k\w+)\s*[,)]/g) { print "$f read $const{$1}\n" if $const{$1}; }
  while ($t =~ /\{\s*"(XSHMEM_[A-Z0-9_]+)"\s*,\s*XSHMEM_CONFIG_/g) { print "$f declared $1\n"; }
  while ($t =~ /\{\s*(k\w+)\s*,\s*XSHMEM_CONFIG_/g) { print "$f declared $const{$1}\n" if $const{$1}; }
'
uses=$(cd "$root" && for d in core backends bootstrap plugins tools device; do
  [ -d "$d" ] || continue
  find "$d" -type f \( -name '*.c' -o -name '*.cc' -o -name '*.cpp' -o -name '*.h' -o \
    -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) -print0 |
    xargs -0 -r -n1 perl -e "$extract"
done)
nread=$(awk '$2 == "read"' <<<"$uses" | wc -l)
echo "scanned $root: $nread configuration reads"
[ "$nread" -gt 0 ] || { echo "FAIL: found no configuration read at all (is the scanner broken?)"; exit 1; }

fail=0
while read -r file kind name; do
  [ "$kind" = read ] || continue
  grep -qx -- "$name" <<<"$listed" && continue
  # The plugin folder this file belongs to, if any: backends/<name> or bootstrap/<name>.
  plugin=""
  case "$file" in
    backends/*) plugin="transport/$(cut -d/ -f2 <<<"$file")" ;;
    bootstrap/*/*) plugin="bootstrap/$(cut -d/ -f2 <<<"$file")" ;;
    plugins/example/*) plugin="transport/example" ;;  # built out of tree (tests/sdk)
  esac
  if [ -n "$plugin" ] && ! grep -qx -- "$plugin" <<<"$loaded"; then
    folder=$(dirname "$file")
    if awk -v d="$folder/" -v n="$name" '$2 == "declared" && $3 == n && index($1, d) == 1' \
        <<<"$uses" | grep -q .; then
      echo "ok (not built here, declared in $folder's table): $name read by $file"
      continue
    fi
  fi
  echo "FAIL: $file reads $name, which no configuration table lists (xshmem-info --env)"
  fail=1
done <<<"$uses"
[ $fail -eq 0 ] && echo "PASS: every XSHMEM_* variable the code reads is listed by xshmem-info --env"
exit $fail
