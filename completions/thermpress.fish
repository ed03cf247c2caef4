# fish completion for thermpress.  It asks the binary itself (thermpress __complete
# WORDS... PARTIAL prints the candidates from the command table, each with its
# description after a tab, as fish takes them), so it never goes stale and is the same
# as bash's and zsh's.  Besides words, the binary prints directives: :files, :dirs and
# :commands ask for file names, directories and command names here.
function __thermpress_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l prog $words[1]
    set -e words[1]
    for c in ($prog __complete $words "$cur" 2>/dev/null)
        switch $c
            case :files
                __fish_complete_path "$cur"
            case :dirs
                __fish_complete_directories "$cur" ''
            case :commands
                __fish_complete_command
            case '*'
                printf '%s\n' $c
        end
    end
end
complete -c thermpress -f -a '(__thermpress_complete)'
