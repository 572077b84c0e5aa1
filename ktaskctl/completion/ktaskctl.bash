# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for ktaskctl(8)                        -*- shell-script -*-
#
# The commands are main.c's command table and the options each command's
# getopt table (cmd_*.c); tests/test_completion.sh checks both against
# 'ktaskctl help' and 'ktaskctl COMMAND --help', so keep them in step.
# Plain bash: it needs nothing from the bash-completion package.

_ktaskctl_commands=(stats run-synthetic bench get set monitor help)
_ktaskctl_settings=(max-threads helper-nice renice)
_ktaskctl_kinds=(cpu memclear sleep)
# --err takes any errno name; these are the ones a chunk plausibly returns.
_ktaskctl_errnos=(EIO ENOMEM ENOSPC EINVAL EBUSY EAGAIN EINTR EFAULT EPERM ENODEV)

# _ktaskctl_options [COMMAND]: sets the caller's array opts to the command's
# long options, or the global ones.  Short options are a letter away and
# not offered.
_ktaskctl_options()
{
	case ${1-} in
	'')		opts=(--json --pretty --help --version) ;;
	stats|get)	opts=(--json --pretty --help) ;;
	run-synthetic)	opts=(--kind --size --min-chunk --nodes --threads --fail-at --err --repeat --json --pretty --help) ;;
	bench)		opts=(--kind --size --min-chunk --nodes --threads --repeat --json --pretty --help) ;;
	set|help)	opts=(--help) ;;
	monitor)	opts=(--count --json --pretty --verbose --help) ;;
	*)		opts=() ;;
	esac
}

# _ktaskctl_takes_arg COMMAND OPTION: whether OPTION consumes the next word
# (getopt also takes unambiguous abbreviations: "--thr" is --threads).
_ktaskctl_takes_arg()
{
	local opt
	local -a opts
	case $1:$2 in
	run-synthetic:-[kscntfer] | bench:-[kscntr] | monitor:-c) return 0 ;;
	*:--?*) ;;
	*) return 1 ;;
	esac
	_ktaskctl_options "$1"
	for opt in "${opts[@]}"; do
		[[ $opt == "$2"* ]] || continue
		case $opt in
		--kind|--size|--min-chunk|--nodes|--threads|--fail-at|--err|--repeat|--count)
			return 0 ;;
		esac
	done
	return 1
}

# _ktaskctl_reply WORDS...: COMPREPLY = those of WORDS that start with cur.
_ktaskctl_reply()
{
	local w
	COMPREPLY=()
	for w in "$@"; do
		[[ $w == "$cur"* ]] && COMPREPLY+=("$prefix$w")
	done
}

_ktaskctl()
{
	local cur prev='' prefix='' value_of='' cmd='' w
	local -a words=() args=() opts=()
	local -i cword=0 i n=${#COMP_WORDS[@]}

	COMPREPLY=()

	# bash splits "--kind=me" at '=' (COMP_WORDBREAKS) into "--kind" "="
	# "me": join such words back first, so that one word is one argument.
	for ((i = 0; i < n; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == = && ${#words[@]} -gt 0 && ${words[-1]} =~ ^--[a-z-]+$ ]]; then
			words[-1]+='='
			((i == COMP_CWORD)) && ((cword = ${#words[@]} - 1))
			if ((i + 1 < n)); then
				((i++))
				words[-1]+=${COMP_WORDS[i]}
				((i == COMP_CWORD)) && ((cword = ${#words[@]} - 1))
			fi
			continue
		fi
		words+=("$w")
		((i == COMP_CWORD)) && ((cword = ${#words[@]} - 1))
	done
	cur=${words[cword]}
	if [[ $cur == --*=* ]]; then
		value_of=${cur%%=*}
		cur=${cur#*=}
		# Where '=' is no word break, the reply replaces all of "--kind=c".
		[[ $COMP_WORDBREAKS == *=* ]] || prefix=$value_of=
	fi

	# The global options come first, then the command.
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		[[ $w == -* ]] && continue
		cmd=$w
		break
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			_ktaskctl_options
			_ktaskctl_reply "${opts[@]}"
		else
			_ktaskctl_reply "${_ktaskctl_commands[@]}"
		fi
		return
	fi

	# The command's words before cur: options (with their values) and
	# operands.  set takes options only before its first key, since
	# "helper-nice -5" is a key and a value.
	for ((i++; i < cword; i++)); do
		w=${words[i]}
		if [[ $w == -?* && ! ($cmd == set && ${#args[@]} -gt 0) ]]; then
			prev=$w
			if _ktaskctl_takes_arg "$cmd" "$w"; then
				((i + 1 < cword)) && prev=''
				((i++))
			fi
			continue
		fi
		args+=("$w")
		prev=''
	done
	# cur is an option's value: after "--kind=" or after "--kind".
	[[ -z $value_of && -n $prev ]] && _ktaskctl_takes_arg "$cmd" "$prev" &&
		value_of=$prev
	if [[ -n $value_of ]]; then
		case $value_of in
		-k|--k*)	_ktaskctl_reply "${_ktaskctl_kinds[@]}" ;;
		-e|--e*)	_ktaskctl_reply "${_ktaskctl_errnos[@]}" ;;
		*)		COMPREPLY=() ;;	# a number, a layout or a list
		esac
		return
	fi

	if [[ $cmd == set ]]; then
		if ((${#args[@]} % 2)); then
			case ${args[-1]} in
			renice)		_ktaskctl_reply on off ;;
			helper-nice)	_ktaskctl_reply {-20..19} ;;
			*)		COMPREPLY=() ;;
			esac
		elif [[ $cur == -* && ${#args[@]} -eq 0 ]]; then
			_ktaskctl_options set
			_ktaskctl_reply "${opts[@]}"
		else
			# Each key once: the pairs go to the kernel as one request.
			local -a left=()
			for w in "${_ktaskctl_settings[@]}"; do
				for ((i = 0; i < ${#args[@]}; i += 2)); do
					[[ ${args[i]} == "$w" ]] && continue 2
				done
				left+=("$w")
			done
			_ktaskctl_reply "${left[@]}"
		fi
		return
	fi

	if [[ $cur == -* ]]; then
		_ktaskctl_options "$cmd"
		_ktaskctl_reply "${opts[@]}"
		return
	fi
	COMPREPLY=()
	case $cmd in
	get)	((${#args[@]} == 0)) && _ktaskctl_reply "${_ktaskctl_settings[@]}" ;;
	help)	((${#args[@]} == 0)) && _ktaskctl_reply "${_ktaskctl_commands[@]}" ;;
	esac
}

complete -F _ktaskctl ktaskctl
