# bash completion for onescope. Option lists match the commands' tables (tests/cli/cli_docs.sh
# compares them with 'onescope CMD --help').
_onescope() {
    local cur=${COMP_WORDS[COMP_CWORD]} cmd="" i
    local commands="validate dump rewrite verify replay convert box3d-dump live ghost diff recover gen-testdata"
    local globals="-q --quiet -v --verbose -h --help --version"
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
    local opts=""
    case $cmd in
    validate) opts="--max-errors" ;;
    dump) opts="--json" ;;
    rewrite) opts="-n --no-clobber" ;;
    verify) opts="-j --jobs --json --junit --shard -r --recursive -n --no-clobber" ;;
    replay) opts="--json --state" ;;
    convert) opts="--fps --source --world --segments --unit --up --keys -n --no-clobber" ;;
    box3d-dump) opts="-s --steps --segments -n --no-clobber" ;;
    live) opts="serve attach --dims --bodies --seed --replay --steps --probe-every --link --from --save --json -n --no-clobber" ;;
    ghost) opts="--from --frames -o --offset --label --segments -n --no-clobber" ;;
    diff) opts="--json -m --max --position-tolerance --angle-tolerance -o --offset" ;;
    recover) opts="-n --no-clobber" ;;
    gen-testdata) opts="-n --no-clobber" ;;
    esac
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
    elif [[ $cmd == live && $((COMP_CWORD - i)) -eq 1 ]]; then
        COMPREPLY=($(compgen -W "serve attach" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _onescope onescope
