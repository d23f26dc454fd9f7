#!/usr/bin/env bash
# One-step setup for torus-sim on Debian 12: installs the Debian packages the build,
# the tests and the plot tools need (only those missing), then configures and builds
# into ./build. Safe to run again: it does only what is left to do.
#
#   bash tools/setup.sh            install + configure + build (Release)
#   TORUS_SIM_BUILD_TYPE=Debug bash tools/setup.sh
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${TORUS_SIM_BUILD_DIR:-"$repo_root/build"}
build_type=${TORUS_SIM_BUILD_TYPE:-Release}

required_packages=(
  build-essential cmake ninja-build pkg-config
  libsystemc-dev libeigen3-dev catch2 libfftw3-dev
  libyaml-cpp-dev libcli11-dev libfmt-dev nlohmann-json3-dev
  python3 python3-numpy python3-matplotlib
  clang libclang-rt-14-dev
  openmpi-bin libopenmpi-dev
)

missing=()
for package in "${required_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S "$repo_root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" >/dev/null
cmake --build "$build_dir" --parallel "$(nproc)"
