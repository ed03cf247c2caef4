# bash completion for thermpress.  It asks the binary itself (thermpress __complete
# WORDS... PARTIAL prints the candidates from the command table), so it never goes stale.
_thermpress() {
	local cur prev words cword
	if declare -F _init_completion >/dev/null 2>&1; then
		_init_completion -n =: || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	prev=${words[cword - 1]}
	case $prev in
	--root) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
	-f) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
	esac
	mapfile -t COMPREPLY < <("${words[0]}" __complete "${words[@]:1:cword-1}" "$cur" 2>/dev/null)
	if declare -F __ltrim_colon_completions >/dev/null 2>&1; then
		__ltrim_colon_completions "$cur"
	fi
	# "smp:" and the like want a value right after them.
	if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *[:=] ]]; then
		compopt -o nospace 2>/dev/null
	fi
}
complete -o default -F _thermpress thermpress
