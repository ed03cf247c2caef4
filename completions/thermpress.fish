# fish completion for thermpress.  It asks the binary itself (thermpress __complete
# WORDS... PARTIAL prints the candidates from the command table, each with its
# description after a tab, as fish takes them), so it never goes stale and is the same
# as bash's and zsh's.  Besides words, the binary prints directives: :files, :dirs and
# :commands ask for file names, directories and command names here; :hint names the
# argument that comes next ("VALUE: 1800MHz, ..."), and :example gives one of its example
# values: fish shows no message, so the examples are offered, described by that name.
function __thermpress_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l prog $words[1]
    set -l what ''
    set -e words[1]
    for c in ($prog __complete $words "$cur" 2>/dev/null)
        set -l w (string split -m1 \t -- $c)
        switch $w[1]
            case :files
                __fish_complete_path "$cur"
            case :dirs
                __fish_complete_directories "$cur" ''
            case :commands
                __fish_complete_command
            case :hint
                set what (string split -m1 ': ' -- $w[2])[1]
            case :example
                printf '%s\t%s\n' $w[2] "example $what"
            case ':*'
            case '*'
                if test (count $w) -eq 1 -a -n "$what"
                    printf '%s\t%s\n' $w[1] $what
                else
                    printf '%s\n' $c
                end
        end
    end
end
complete -c thermpress -f -a '(__thermpress_complete)'
