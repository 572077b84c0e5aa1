#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bash completion offers what ktaskctl takes; prints TAP.
#
# Usage: test_completion.sh KTASKCTL COMPLETION_FILE
#
# Sources the completion into this (non-interactive) bash and calls its
# function as bash would on <TAB>; the commands and each command's long
# options must be the ones 'ktaskctl help' and 'ktaskctl CMD --help' list.
set -u
ktaskctl=$1
# shellcheck source-path=SCRIPTDIR source=../completion/ktaskctl.bash
source "$2" || { echo "1..0 # SKIP cannot source $2"; exit 1; }

count=0 failed=0

# check NAME GOT WANT
check() {
	count=$((count + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $count - $1"
	else
		failed=$((failed + 1))
		echo "not ok $count - $1"
		echo "#   got:  '$2'"
		echo "#   want: '$3'"
	fi
}

# tab WORD...: the sorted, space-separated candidates for the last
# WORD ('' after a space), split into words the way bash does, which puts
# '=' in a word of its own.
tab() {
	local line="$*"
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	_ktaskctl ktaskctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | words
}

# words: stdin's lines sorted, on one line with single spaces.
words() { sort | paste -sd ' ' -; }

# The binary's own lists: commands from 'help', long options from --help.
commands=$("$ktaskctl" help | sed -n '/^Commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p' | words)
long_options() { "$ktaskctl" "$@" | grep -oE '^ +-[a-zA-Z], --[a-z-]+' | sed 's/.*, //' | words; }

check "ktaskctl <TAB>: the commands of 'ktaskctl help'" "$(tab ktaskctl '')" "$commands"
check "ktaskctl ru<TAB> -> run-synthetic" "$(tab ktaskctl ru)" "run-synthetic"
check "ktaskctl -j ru<TAB>: global options are skipped" "$(tab ktaskctl -j ru)" "run-synthetic"
check "ktaskctl --pretty s<TAB>" "$(tab ktaskctl --pretty s)" "set stats"
check "ktaskctl -<TAB>: the global options of 'ktaskctl --help'" \
	"$(tab ktaskctl -)" "$(long_options --help)"

for cmd in $commands; do
	check "ktaskctl $cmd -<TAB>: the options of 'ktaskctl $cmd --help'" \
		"$(tab ktaskctl "$cmd" -)" "$(long_options "$cmd" --help)"
done

check "ktaskctl help <TAB>: the commands" "$(tab ktaskctl help '')" "$commands"
check "ktaskctl help st<TAB>" "$(tab ktaskctl help st)" "stats"
check "ktaskctl help stats <TAB>: one command only" "$(tab ktaskctl help stats '')" ""

settings="helper-nice max-threads renice"
check "ktaskctl set <TAB>: the settings" "$(tab ktaskctl set '')" "$settings"
check "ktaskctl get <TAB>: the settings" "$(tab ktaskctl get '')" "$settings"
check "ktaskctl get --json <TAB>: the settings" "$(tab ktaskctl get --json '')" "$settings"
check "ktaskctl get renice <TAB>: one key only" "$(tab ktaskctl get renice '')" ""
check "ktaskctl set renice <TAB>: on off" "$(tab ktaskctl set renice '')" "off on"
check "ktaskctl set renice o<TAB>" "$(tab ktaskctl set renice o)" "off on"
check "ktaskctl set renice off <TAB>: the other settings" \
	"$(tab ktaskctl set renice off '')" "helper-nice max-threads"
check "ktaskctl set helper-nice -<TAB>: nice levels, not options" \
	"$(tab ktaskctl set helper-nice -2)" "-2 -20"
check "ktaskctl set helper-nice -5 m<TAB>" "$(tab ktaskctl set helper-nice -5 m)" "max-threads"
check "ktaskctl set max-threads <TAB>: a number, nothing offered" \
	"$(tab ktaskctl set max-threads '')" ""

for cmd in run-synthetic bench; do
	check "ktaskctl $cmd --kind <TAB>: the kinds" "$(tab ktaskctl "$cmd" --kind '')" "cpu memclear sleep"
	check "ktaskctl $cmd -k m<TAB>" "$(tab ktaskctl "$cmd" -k m)" "memclear"
	check "ktaskctl $cmd --kind=<TAB> (bash splits at '=')" \
		"$(tab ktaskctl "$cmd" --kind =)" "cpu memclear sleep"
	check "ktaskctl $cmd --kind=s<TAB>" "$(tab ktaskctl "$cmd" --kind = s)" "sleep"
	check "ktaskctl $cmd --size <TAB>: a number, nothing offered" \
		"$(tab ktaskctl "$cmd" --size '')" ""
	check "ktaskctl $cmd --size 10 --j<TAB>" "$(tab ktaskctl "$cmd" --size 10 --j)" "--json"
	check "ktaskctl $cmd --size=10 --kind cpu --r<TAB>" \
		"$(tab ktaskctl "$cmd" --size = 10 --kind cpu --r)" "--repeat"
done
check "ktaskctl run-synthetic --err ENO<TAB>" \
	"$(tab ktaskctl run-synthetic --err ENOM)" "ENOMEM"
check "ktaskctl monitor --count <TAB>: a number, nothing offered" \
	"$(tab ktaskctl monitor --count '')" ""
check "ktaskctl monitor --count 3 --v<TAB>" "$(tab ktaskctl monitor --count 3 --v)" "--verbose"

# Where '=' is no word break, "--kind=m" is one word and so is the reply.
COMP_WORDBREAKS=${COMP_WORDBREAKS//=/}
check "ktaskctl bench --kind=m<TAB> without '=' in COMP_WORDBREAKS" \
	"$(tab ktaskctl bench --kind=m)" "--kind=memclear"

check "the completion is registered for ktaskctl" \
	"$(complete -p ktaskctl 2>&1)" "complete -F _ktaskctl ktaskctl"

echo "1..$count"
[ "$failed" = 0 ]
