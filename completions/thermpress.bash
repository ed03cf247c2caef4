# bash completion for thermpress.  It asks the binary itself (thermpress __complete
# WORDS... PARTIAL prints the candidates from the command table), so it never goes stale.
# A candidate's description follows a tab (zsh and fish show it; bash drops it).
# Besides words, the binary prints directives: :files, :dirs and :commands ask for file
# names, directories and command names here; :example gives an example value of the
# argument that comes next (cap set big <TAB>: 1800MHz 2.36GHz cap=600 60%), offered as
# a word since bash cannot show a message (:hint, its line, is for zsh and the shell).
# It works with or without the bash-completion package.

# The words as thermpress takes them, from COMP_LINE: bash splits "--sim=smp:4" at the
# characters of COMP_WORDBREAKS ("--sim" "=" "smp" ":" "4"), and a word that does not
# start after a blank goes on the one before.  Sets words, cword, cur (up to the cursor)
# and prefix: what of cur readline does not replace (up to its last COMP_WORDBREAKS
# character), taken off the candidates.
_thermpress_words() {
	local line w i k n
	words=()
	if [[ -z ${COMP_LINE+set} ]]; then
		words=("${COMP_WORDS[@]:0:COMP_CWORD+1}")
	else
		line=${COMP_LINE:0:COMP_POINT}
		for ((i = 0; i <= COMP_CWORD; i++)); do
			w=${COMP_WORDS[i]}
			n=${#line}
			line=${line#"${line%%[![:space:]]*}"}
			((${#w} > ${#line})) && w=${line}
			if ((i > 0 && ${#line} == n && ${#words[@]})); then
				words[${#words[@]} - 1]+=$w
			else
				words+=("$w")
			fi
			line=${line:${#w}}
		done
		# after a blank: a new, empty word
		[[ ${COMP_LINE:0:COMP_POINT} == *[[:space:]] && -n ${words[${#words[@]} - 1]} ]] &&
			words+=("")
	fi
	cword=$((${#words[@]} - 1))
	cur=${words[cword]}
	prefix=
	for ((k = ${#cur} - 1; k >= 0; k--)); do
		if [[ $COMP_WORDBREAKS == *"${cur:k:1}"* ]]; then
			prefix=${cur:0:k+1}
			break
		fi
	done
}

_thermpress() {
	local cur prev words cword c prefix i
	local -a cands
	# bash-completion, when loaded, completes redirections itself
	if declare -F _init_completion >/dev/null 2>&1; then
		_init_completion -n =: || return
	fi
	_thermpress_words
	mapfile -t cands < <("${words[0]}" __complete "${words[@]:1:cword-1}" "$cur" 2>/dev/null)
	COMPREPLY=()
	for c in "${cands[@]}"; do
		case ${c%%$'\t'*} in
		:files | :dirs | :commands)
			c=${c%%$'\t'*}
			local -A flag=([:files]=-f [:dirs]=-d [:commands]=-c)
			mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen "${flag[$c]}" -- "$cur")
			[[ $c == :commands ]] || compopt -o filenames 2>/dev/null
			;;
		:example) COMPREPLY+=("${c#*$'\t'}") ;;
		:*) ;;
		*) COMPREPLY+=("${c%%$'\t'*}") ;;
		esac
	done
	# readline replaces the word after the last '=' or ':' only
	for i in "${!COMPREPLY[@]}"; do
		[[ -n $prefix && ${COMPREPLY[i]} == "$prefix"* ]] && COMPREPLY[i]=${COMPREPLY[i]#"$prefix"}
	done
	# "smp:" and the like want a value right after them.
	if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *[:=] ]]; then
		compopt -o nospace 2>/dev/null
	fi
}
complete -F _thermpress thermpress
