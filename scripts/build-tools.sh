#!/bin/bash
# Build the userspace tools (meson) into build/meson.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$KTASK_TOP"
[ -f build/meson/build.ninja ] || meson setup build/meson >/dev/null
ninja -C build/meson >/dev/null
# The kernel's mm selftests, when a kernel tree is there to build them from.
[ ! -d "$KTASK_SRC/tools/testing/selftests/mm" ] || "$KTASK_TOP/scripts/build-mm-selftests.sh"
