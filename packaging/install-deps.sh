#!/usr/bin/env bash
# Installs the Debian 12 packages the project builds, tests and runs with (only those missing).
# Uses sudo when not root. Safe to run again.
set -euo pipefail

packages=(
    build-essential cmake ninja-build ccache pkg-config
    qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libxkbcommon-dev
    libgraphviz-dev graphviz
    libtorch-dev libgloo-dev libgoogle-perftools-dev
    libzip-dev zlib1g-dev
    nlohmann-json3-dev libcli11-dev
)
if [[ "${1:-}" == "--tests" || "${1:-}" == "--fuzz" ]]; then
    # Test-time tools: numpy writes real fixtures; Xvfb + ImageMagick for the window screenshot;
    # clang with its runtime (libFuzzer, sanitizers) for the reader's fuzzer.
    packages+=(python3 python3-numpy xvfb xauth imagemagick xdotool clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
    exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "Installing: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
