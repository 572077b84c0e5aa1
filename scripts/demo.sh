#!/bin/bash
# README's first command: boot the ktask guest and show ktask at work.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

exec "$KTASK_TOP/scripts/vm-run.sh" "$KTASK_TOP/guest/demo.sh"
