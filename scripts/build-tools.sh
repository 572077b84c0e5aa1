#!/bin/bash
# Build the userspace tools (meson) into build/meson.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$KTASK_TOP"
[ -f build/meson/build.ninja ] || meson setup build/meson >/dev/null
ninja -C build/meson >/dev/null
