#!/usr/bin/env zsh
# zsh_complete.zsh DIR LINE: what zsh's own completion offers for LINE with TAB at its
# end, in a real interactive zsh (under zpty) with fpath=(DIR ...) and compinit.
# Prints W:MATCH for each match and D:DISPLAY for each line shown with a description,
# then S:LINE for the other lines of its output (a _message).
# compadd is wrapped to print what it is given, then does its work.
zmodload zsh/zpty || exit 1
dir=$1 line=$2
zpty z zsh -f -i
zpty -w z "fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'PROMPT="> "; unsetopt beep; zstyle ":completion:*" menu no'
zpty -w z 'compadd() { local -a __h; local __d= __i
	for ((__i = 1; __i < $#; __i++)); do [[ ${@[__i]} == -d ]] && __d=${@[__i+1]}; done
	builtin compadd -O __h "$@"; print -rl -- "" ${__h/#/W:}
	[[ -n $__d ]] && print -rl -- ${(P)__d/#/D:}
	builtin compadd "$@"; }'
# TAB completes, then says so: the next keys are only sent after that, because with
# keys already waiting (typeahead) zle may cut a completion short
zpty -w z 'tp-tab() { zle complete-word; print -rn -- $'"'"'\nTAB''DONE\n'"'"'; }; zle -N tp-tab; bindkey "^I" tp-tab'
zpty -w z 'print -r -- READY'
# the echo of the command line, then its output
zpty -r -m z out '*READY*' || exit 1
zpty -r -m z out '*READY*' || exit 1
zpty -w -n z "$line"$'\t'
zpty -r -m z out '*TABDONE*' || exit 1
# clear the line and mark the end
zpty -w -n z $'\C-e\C-u'
zpty -w z 'print -r -- DONE'
zpty -r -m z rest '*DONE*' || exit 1
print -r -- "$out" | tr -d '\r' | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | grep -a '^[WD]:' | awk '!seen[$0]++'
# and S:LINE for each line zsh showed under the command line (a _message's text)
print -r -- "$out$rest" | tr -d '\r' | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | grep -av '^[WD]:' | sed 's/^/S:/'
zpty -d z
