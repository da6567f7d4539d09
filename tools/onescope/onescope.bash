# bash completion for onescope. The command and option words are generated from the commands'
# tables by tools/onescope/gen_docs.py (tests/cli/cli_docs.sh fails when they differ).
_onescope() {
    local cur=${COMP_WORDS[COMP_CWORD]} cmd="" i
    # BEGIN GENERATED words
    local commands="validate dump rewrite verify replay convert box3d-dump box3d-record live ghost diff recover plot gen-testdata module view"
    local globals="-q --quiet -v --verbose -h --help --version --module"
    # END GENERATED words
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        --) ;;
        -*) ;;
        *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "$globals" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        fi
        return
    fi
    # the table: live's subcommand, dump's --poses form
    local key=$cmd j w
    if [[ $cmd == live ]]; then
        for ((j = i + 1; j < COMP_CWORD; j++)); do
            case ${COMP_WORDS[j]} in
            -*) ;;
            *) key="live ${COMP_WORDS[j]}"; break ;;
            esac
        done
    elif [[ $cmd == dump ]]; then
        for w in "${COMP_WORDS[@]}"; do [[ $w == --poses ]] && key="dump --poses"; done
    fi
    local opts=""
    # BEGIN GENERATED options
    case $key in
    validate) opts="--max-errors" ;;
    dump) opts="--json --poses" ;;
    "dump --poses") opts="--poses --frames --entity --csv --json" ;;
    rewrite) opts="-n --no-clobber" ;;
    verify) opts="-j --jobs --json --junit --shard -r --recursive -n --no-clobber" ;;
    replay) opts="--json --state" ;;
    convert) opts="--fps --source --world --segments --unit --up --keys -n --no-clobber" ;;
    box3d-dump) opts="-s --steps --segments -n --no-clobber" ;;
    box3d-record) opts="-s --steps --seed --entity-rows --keyframes --ulp --max-bytes -n --no-clobber" ;;
    "live serve") opts="--dims --bodies --seed --replay --steps --probe-every --link" ;;
    "live attach") opts="--from --save --json -n --no-clobber" ;;
    ghost) opts="--from --frames -o --offset --label --segments -n --no-clobber" ;;
    diff) opts="--json -m --max --position-tolerance --angle-tolerance -o --offset" ;;
    recover) opts="-n --no-clobber" ;;
    plot) opts="-o --output --from --to --width --height --title --field --step --diff --entity -n --no-clobber" ;;
    gen-testdata) opts="-n --no-clobber" ;;
    "module check") opts="--steps --horizon --every --json" ;;
    view) opts="-o --output --diff --entity --trail --max-bytes --title -n --no-clobber" ;;
    esac
    # END GENERATED options
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts $globals" -- "$cur"))
    elif [[ $cmd == convert && ${COMP_WORDS[COMP_CWORD - 1]} == --source ]]; then
        COMPREPLY=($(compgen -W "harmony blender maya" -- "$cur"))
    elif [[ $cmd == convert && ${COMP_WORDS[COMP_CWORD - 1]} == --unit ]]; then
        COMPREPLY=($(compgen -W "m cm mm" -- "$cur"))
    elif [[ $cmd == convert && ${COMP_WORDS[COMP_CWORD - 1]} == --up ]]; then
        COMPREPLY=($(compgen -W "x y z" -- "$cur"))
    elif [[ $cmd == convert && ${COMP_WORDS[COMP_CWORD - 1]} == --keys ]]; then
        COMPREPLY=($(compgen -W "needed all" -- "$cur"))
    elif [[ $cmd == plot && ${COMP_WORDS[COMP_CWORD - 1]} == --field ]]; then
        COMPREPLY=($(compgen -W "density occupancy" -- "$cur"))
    elif [[ $key == live ]]; then
        COMPREPLY=($(compgen -W "serve attach" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _onescope onescope
