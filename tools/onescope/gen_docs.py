#!/usr/bin/env python3
"""The option lists of the docs, made from the CLI's option tables.

    python3 tools/onescope/gen_docs.py ONESCOPE [--check] [--src DIR]

ONESCOPE is a built onescope binary: `ONESCOPE --print-options` prints every command's table
(args.c, cli_print_options) as JSON. From it this script writes the regions between
"BEGIN GENERATED name" and "END GENERATED name" markers of

  tools/onescope/onescope.1     the global options and the whole COMMANDS section
  tools/onescope/onescope.bash  the command and option words of the completion
  docs/cli.md                   the global option table and each command's option table

Everything outside the markers is hand-written; --check also refuses a hand-written mention
of an option no table has (and, in a command's section of docs/cli.md, an option that
command does not take). With --check nothing is written: the exit code is 1 when a file
differs from what the tables give (tests/cli/cli_docs.sh runs it). --src: the tree holding
the files (default: the one this script is in).
"""
import difflib
import json
import os
import re
import subprocess
import sys

SRC = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MAN = "tools/onescope/onescope.1"
BASH = "tools/onescope/onescope.bash"
CLI_MD = "docs/cli.md"
REGEN = "python3 tools/onescope/gen_docs.py BUILD/tools/onescope"
# Words after "--" in hand-written text that are not onescope options: cmake's own options,
# the placeholder of the spelling rules and the prefix they say is refused.
NOT_OPTIONS = {"build", "target", "opt", "jso"}


def flags(o):
    """The option's spellings: ['-s', '--steps']."""
    return ([f"-{o['short']}"] if o["short"] else []) + [f"--{o['long']}"]


def end_of_options(t):
    """What "--" does, without the "'--' " the --help line starts with."""
    text = t["end_of_options"]
    return text[len("'--' "):] if text.startswith("'--' ") else text


def own_options(c, tables):
    """A command's options as its --help lists them: its table, then -n for a writer."""
    return c["options"] + ([tables["no_clobber"]] if c["writes"] else [])


# ---- onescope.1 ----


def roff(text):
    """Text for a roff line: backslashes and hyphens escaped, no request at the start."""
    t = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + t if t[:1] in (".", "'") else t


def man_option(o):
    words = ", ".join(f"\\fB{roff(f)}\\fR" for f in flags(o))
    if o["arg"]:
        words += f" \\fI{roff(o['arg'])}\\fR"
    return [".TP", words, roff(o["help"])]


def man_about(about):
    """The --help paragraph as filled text. An indented line continues the item above it; the
    next unindented line after such an item starts a paragraph. A usage form ("onescope ...")
    followed by indented lines is a tagged paragraph, those lines its body."""
    out, indented = [], False
    lines = about.splitlines()
    for k, line in enumerate(lines):
        now = line.startswith(" ")
        nxt = lines[k + 1] if k + 1 < len(lines) else ""
        if line.startswith("onescope ") and nxt.startswith(" "):
            out.append(".TP")
        elif out and not now and indented:
            out.append(".PP")
        out.append(roff(line.strip()))
        indented = now
    return out


def man_globals(t):
    lines = []
    for o in t["globals"]:
        lines += man_option(o)
    lines += [".TP", "\\fB\\-\\-\\fR", roff(end_of_options(t))]
    return lines


def man_commands(t):
    lines = []
    for c in t["commands"]:
        usage = f"\\fBonescope {roff(c['name'])}\\fR"
        if c["operands"]:
            usage += " " + roff(c["operands"])
        lines += [f".SS {roff(c['name'])}", usage + " [OPTIONS]", ".PP"]
        lines += man_about(c["about"])
        for o in own_options(c, t):
            lines += man_option(o)
        lines += [".PP", f"Exit status: {roff(c['exit'])}"]
    return lines


# ---- onescope.bash ----


def bash_words(t):
    commands = []
    for c in t["commands"]:
        first = c["name"].split()[0]
        if first not in commands:
            commands.append(first)
    glob = " ".join(f for o in t["globals"] for f in flags(o))
    return [f'    local commands="{" ".join(commands)}"', f'    local globals="{glob}"']


def bash_options(t):
    words = {}
    for c in t["commands"]:
        words[c["name"]] = [f for o in own_options(c, t) for f in flags(o)]
    # "dump --poses" is a form of dump: dump completes its word too
    for name in list(words):
        base, _, form = name.partition(" --")
        if form and base in words:
            words[base].append("--" + form)
    lines = ["    case $key in"]
    for name, w in words.items():
        label = f'"{name}"' if " " in name else name
        lines.append(f'    {label}) opts="{" ".join(w)}" ;;')
    lines.append("    esac")
    return lines


# ---- docs/cli.md ----


def md_cell(text):
    return text.replace("|", "\\|")


def md_table(options):
    if not options:
        return ["No options of its own."]
    rows = ["| option | meaning |", "|--------|---------|"]
    for o in options:
        f = flags(o)
        f[-1] += f" {o['arg']}" if o["arg"] else ""
        rows.append(f"| {', '.join(f'`{x}`' for x in f)} | {md_cell(o['help'])} |")
    return rows


def md_globals(t):
    rows = md_table(t["globals"])
    rows.append(f"| `--` | {md_cell(end_of_options(t))} |")
    return rows


# ---- regions ----


class Problem(Exception):
    pass


def replace_regions(path, text, regions, open_mark, close_mark):
    """text with each region's lines replaced; every marker must name a region and every
    region must have its markers once."""
    found = set()
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.fullmatch(open_mark, lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        name = m.group(1)
        if name not in regions:
            raise Problem(f"{path}:{i + 1}: a generated region '{name}' that no table gives")
        if name in found:
            raise Problem(f"{path}:{i + 1}: region '{name}' twice")
        found.add(name)
        out.append(lines[i])
        j = i + 1
        while j < len(lines) and not re.fullmatch(close_mark, lines[j]):
            j += 1
        if j == len(lines) or re.fullmatch(close_mark, lines[j]).group(1) != name:
            raise Problem(f"{path}:{i + 1}: region '{name}' has no matching END marker")
        out += regions[name]
        out.append(lines[j])
        i = j + 1
    missing = sorted(set(regions) - found)
    if missing:
        raise Problem(f"{path}: no generated region for {', '.join(missing)} (add the "
                      "BEGIN/END GENERATED markers where the list belongs)")
    return "\n".join(out)


def outside(text, open_mark, close_mark):
    """The hand-written lines (with their numbers) of a file."""
    inside = False
    for n, line in enumerate(text.split("\n"), 1):
        if re.fullmatch(open_mark, line):
            inside = True
        elif re.fullmatch(close_mark, line):
            inside = False
        elif not inside:
            yield n, line


def check_mentions(path, text, open_mark, close_mark, known, sections=None):
    """Every --option written by hand names a real option (in a command's section of
    docs/cli.md: one of that command's, or a global one)."""
    problems, section = [], None
    dash = r"\\-" if path.endswith(".1") else "-"
    pattern = re.compile(rf"(?<![\w\\-]){dash}{dash}([a-z][a-z0-9]*(?:{dash}[a-z0-9]+)*)")
    for n, line in outside(text, open_mark, close_mark):
        if sections is not None and line.startswith("#"):
            m = re.match(r"#{2,3} (.*)", line)
            section = sections.get(m.group(1).strip()) if m else None
        for m in pattern.finditer(line):
            name = m.group(1).replace("\\-", "-")
            allowed = known if section is None else section
            if name not in allowed:
                where = "any command" if section is None else f"this section's command"
                problems.append(f"{path}:{n}: --{name} is not an option of {where}")
    return problems


def main():
    global SRC
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    if len(args) == 3 and args[1] == "--src":
        SRC = args.pop(2)
        args.pop(1)
    if len(args) != 1:
        sys.exit(__doc__)
    tables = json.loads(subprocess.run([args[0], "--print-options"], check=True,
                                       capture_output=True, text=True).stdout)
    cmds = tables["commands"]
    global_names = {o["long"] for o in tables["globals"]} | {"print-options"}
    writer_names = {tables["no_clobber"]["long"]}
    known = global_names | writer_names | {o["long"] for c in cmds for o in c["options"]}
    known |= NOT_OPTIONS

    # what each command's section of docs/cli.md may mention: its own options (a section
    # named after the first word holds all its forms: live serve and attach, dump --poses)
    sections = {}
    for c in cmds:
        first = c["name"].split()[0]
        names = sections.setdefault(first, global_names | NOT_OPTIONS)
        names |= {o["long"] for o in own_options(c, tables)}

    files = {
        MAN: (r'\.\\" BEGIN GENERATED ([A-Za-z0-9-]+).*', r'\.\\" END GENERATED ([A-Za-z0-9-]+).*',
              {"globals": man_globals(tables), "commands": man_commands(tables)}, None),
        BASH: (r"\s*# BEGIN GENERATED ([A-Za-z0-9-]+).*", r"\s*# END GENERATED ([A-Za-z0-9-]+).*",
               {"words": bash_words(tables), "options": bash_options(tables)}, None),
        CLI_MD: (r"<!-- BEGIN GENERATED ([A-Za-z0-9-]+) .*-->", r"<!-- END GENERATED ([A-Za-z0-9-]+) .*-->",
                 dict([("globals", md_globals(tables))] +
                      [("options-" + c["name"].replace(" --", "-").replace(" ", "-"),
                        md_table(own_options(c, tables))) for c in cmds]), sections),
    }
    failed = False
    for path, (open_mark, close_mark, regions, secs) in files.items():
        full = os.path.join(SRC, path)
        old = open(full, encoding="utf-8").read()
        try:
            new = replace_regions(path, old, regions, open_mark, close_mark)
        except Problem as e:
            print(e, file=sys.stderr)
            failed = True
            continue
        problems = check_mentions(path, new, open_mark, close_mark, known, secs)
        for p in problems:
            print(p, file=sys.stderr)
        failed |= bool(problems)
        if new == old:
            continue
        if check:
            failed = True
            print(f"{path} differs from the option tables (the lines the tables give: +):",
                  file=sys.stderr)
            diff = list(difflib.unified_diff(old.split("\n"), new.split("\n"), path, path,
                                             lineterm="", n=1))
            for line in diff[:60]:
                print("  " + line, file=sys.stderr)
            if len(diff) > 60:
                print(f"  ... {len(diff) - 60} more lines", file=sys.stderr)
        else:
            with open(full, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"wrote {path}")
    if failed and check:
        print(f"the docs drifted from the option tables: regenerate with '{REGEN}' (or "
              "'cmake --build BUILD --target cli_docs'), fix any hand-written mention listed "
              "above, and commit the result", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
