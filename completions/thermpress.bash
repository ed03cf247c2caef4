# bash completion for thermpress.  It asks the binary itself (thermpress __complete
# WORDS... PARTIAL prints the candidates from the command table), so it never goes stale.
# A candidate's description follows a tab (zsh and fish show it; bash drops it).
# Besides words, the binary prints directives: :files, :dirs and :commands ask for file
# names, directories and command names here.
_thermpress() {
	local cur words cword c
	local -a cands
	if declare -F _init_completion >/dev/null 2>&1; then
		_init_completion -n =: || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	mapfile -t cands < <("${words[0]}" __complete "${words[@]:1:cword-1}" "$cur" 2>/dev/null)
	COMPREPLY=()
	for c in "${cands[@]}"; do
		c=${c%%$'\t'*}
		case $c in
		:files | :dirs | :commands)
			local -A flag=([:files]=-f [:dirs]=-d [:commands]=-c)
			mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen "${flag[$c]}" -- "$cur")
			[[ $c == :commands ]] || compopt -o filenames 2>/dev/null
			;;
		*) COMPREPLY+=("$c") ;;
		esac
	done
	if declare -F __ltrim_colon_completions >/dev/null 2>&1; then
		__ltrim_colon_completions "$cur"
	fi
	# "smp:" and the like want a value right after them.
	if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *[:=] ]]; then
		compopt -o nospace 2>/dev/null
	fi
}
complete -F _thermpress thermpress
