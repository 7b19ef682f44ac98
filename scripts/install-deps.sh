#!/usr/bin/env bash
# Installs the Debian 12 packages xshmem builds and tests with. Skips apt when all are present.
set -euo pipefail
pkgs=(cmake g++ make pkg-config libhwloc-dev libfabric-dev libibverbs-dev catch2 libopenmpi-dev
      openmpi-bin libpmix-dev nlohmann-json3-dev libcli11-dev libfmt-dev clang-format
      clang libclang-rt-14-dev  # clang, libFuzzer and the sanitizer runtimes: tests/fuzz
      pybind11-dev python3-dev python3-numpy python3-pytest python3-torch)  # python/
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
