"""`doi-extract completion bash|zsh`: a completion script made from the command's own parser, so
that it names every subcommand, option and choice the installed version has."""

from __future__ import annotations

import argparse


def _commands(ap: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in ap._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(ap: argparse.ArgumentParser) -> tuple[list[str], dict[str, list[str]]]:
    """The option strings of a parser, and the choices of the options that take one."""
    opts: list[str] = []
    choices: dict[str, list[str]] = {}
    for action in ap._actions:
        opts += action.option_strings
        if action.option_strings and action.choices:
            for o in action.option_strings:
                choices[o] = [str(c) for c in action.choices]
    return opts, choices


def _positional_choices(ap: argparse.ArgumentParser) -> list[str]:
    for action in ap._actions:
        if (
            not action.option_strings
            and action.choices
            and not isinstance(action, argparse._SubParsersAction)
        ):
            return [str(c) for c in action.choices]
    return []


def _bash(ap: argparse.ArgumentParser) -> str:
    commands = _commands(ap)
    top, _ = _options(ap)
    cases = []
    for name, sub in commands.items():
        opts, choices = _options(sub)
        value_cases = "".join(
            f"                {o}) COMPREPLY=($(compgen -W '{' '.join(c)}' -- \"$cur\")); return;;\n"
            for o, c in choices.items()
        )
        words = _positional_choices(sub)
        rest = (
            f"COMPREPLY=($(compgen -W '{' '.join(words)}' -- \"$cur\"))"
            if words
            else 'COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null'
        )
        cases.append(
            f"        {name})\n"
            f'            case "$prev" in\n{value_cases}            esac\n'
            f'            if [[ "$cur" == -* ]]; then\n'
            f"                COMPREPLY=($(compgen -W '{' '.join(opts)}' -- \"$cur\"))\n"
            f"            else\n                {rest}\n            fi;;\n"
        )
    return (
        "# bash completion for doi-extract (doi-extract completion bash)\n"
        "_doi_extract() {\n"
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmd="" i\n'
        "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
        '        case "${COMP_WORDS[i]}" in\n'
        f'            {"|".join(commands)}) cmd="${{COMP_WORDS[i]}}"; break;;\n'
        "        esac\n"
        "    done\n"
        '    case "$cmd" in\n'
        '        "")\n'
        f"            COMPREPLY=($(compgen -W '{' '.join([*commands, *top])}' -- \"$cur\"));;\n"
        + "".join(cases)
        + "    esac\n"
        "}\n"
        "complete -F _doi_extract doi-extract\n"
    )


def completion_script(ap: argparse.ArgumentParser, shell: str) -> str:
    """The script for `shell` ("bash" or "zsh": the same function, through zsh's bashcompinit)."""
    script = _bash(ap)
    if shell == "zsh":
        return "#compdef doi-extract\nautoload -U +X bashcompinit && bashcompinit\n" + script
    return script
