# bash completion for cgplan: commands, options, knobs (--set KEY=) and preset names.
_cgplan() {
    local cur prev words cword
    _init_completion -n = 2>/dev/null || { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; }
    local commands="tui estimate sweep presets launch lint solve search diff ingest runs calibrate check model help"
    local opts="--preset --model --set --db --format --vary --compare --ascii --snapshot --keys --label --dry-run --yes --check --gpus --nodes --allow-patched --disaggregation-mode --all --pin-kv --calibrate --help"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$commands $opts" -- "$cur")); return
    fi
    case "$prev" in
        --preset|--compare)
            COMPREPLY=($(compgen -W "$(cgplan presets --format csv 2>/dev/null | tail -n +2 | cut -d, -f1)" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "table json csv" -- "$cur")); return ;;
        --set|--vary)
            local knobs
            knobs=$(cgplan --help 2>/dev/null | sed -n '/^Knobs/,/^$/p' | awk 'NR>1 && NF {print $1"="}')
            COMPREPLY=($(compgen -W "$knobs" -- "$cur")); compopt -o nospace 2>/dev/null; return ;;
        --db|--snapshot|--keys|--label|--gpus|--nodes) return ;;
        solve) COMPREPLY=($(compgen -W "max_bs max_dispatch context_len mtp mem_fraction_static" -- "$cur")); return ;;
        runs) COMPREPLY=($(compgen -W "list show rm set set-model" -- "$cur")); return ;;
    esac
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -F _cgplan cgplan
