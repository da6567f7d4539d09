#!/usr/bin/env python3
"""Mechanical mutants over src/*.c and tools/onescope/*.c, in the block format scripts/mutate.sh
plants (why/file/line/from/to, plus the suites to run first). Run by hand, not in CI:

    python3 scripts/mutagen.py --sample 300 --seed 1 > build/mutants-gen.txt &&
        nice bash scripts/mutate.sh -l build/mutants-gen.txt

Kinds: rel (a relational operator moved across its boundary: < <=, > >=, == !=), const (an
integer constant +1 and -1), ret (an `if (...)` guarding a return or goto disabled: the early
return or error check removed), logic (&& <-> ||). Comments, strings, character literals,
preprocessor lines and initialised tables are skipped. Each mutant is named file:line:kind:n
(n counts that kind's mutants on the line); --sample N --seed S keeps N of them, chosen by a
seeded shuffle and listed in that order (the first K are a sample of K: a run cut short is
still a fair sample), so the same command gives the same list on the same tree.

Never mutated (see EXCLUDE): the output landing code that decides what a path is and where the
bytes go (src/file.c's target resolution, temporary files, special-file writes, renames and
removal; the writers' special-file and same-file checks; the CLI's output-replaces-input
check). The suites run as root on this machine: a special-file check flipped would rename a
test's output over /dev/null, a same-file check flipped would replace a test's input.
"""
import argparse
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Functions never mutated, per file (the landing code; see the header).
EXCLUDE_FUNCS = {
    "src/file.c": {
        "copy_path", "follow_dangling", "onescope_os_target_resolve", "onescope_os_target_free",
        "onescope_os_target_adopt", "onescope_os_target_create_temp", "write_special",
        "onescope_file_write", "onescope_os_file_create_new", "onescope_os_file_rename",
        "onescope_os_file_remove", "onescope_file_same",
        "onescope_os_file_sink_discard", "onescope_os_file_sink_open",
        "onescope_os_file_sink_commit", "onescope_os_file_write_buffer",
    },
    "tools/onescope/cli.c": {"cli_same_file", "cli_output_is_input"},
}
# Lines never mutated anywhere: what a path is, renames, removals, output-is-input checks.
EXCLUDE_LINE = re.compile(r"special|file_same|rename|unlink|remove|S_IS|same_file|realpath|"
                          r"O_TRUNC|O_CREAT|chown|chmod")

# The suites that read each module first (ctest -R regex); the rest of the fast suites run
# after them only when these pass. Unlisted files run every fast suite.
SUITES = {
    "src/alloc.c": "test_alloc|test_bytes",
    "src/bytes.c": "test_bytes|test_pose_cache|test_replay$",
    "src/diff.c": "test_diff|cli_diff",
    "src/diff_cache.c": "test_diff|cli_diff",
    "src/error.c": "test_error|test_contract",
    "src/file.c": "test_file|cli_validate_stream|cli_verify|cli_ospc",
    "src/pose_cache_file.c": "test_file|test_read_limits|test_validate_stream|test_diff",
    "src/replay_file.c": "test_file|test_read_limits|test_validate_stream|cli_verify",
    "src/recording_file.c": "test_recording|test_read_limits|cli_verify",
    "src/format.c": "test_format|cli_ospc",
    "src/ghost.c": "test_ghost|cli_ghost",
    "src/json_pos.c": "test_json_pos|test_ots$",
    "src/json_reader.c": "test_json_reader|test_json_numbers|test_ots_stream",
    "src/limits.c": "test_file|test_contract",
    "src/live_stream.c": "test_live|cli_live",
    "src/live_probe.c": "test_live|cli_live",
    "src/live_viewer.c": "test_live|cli_live",
    "src/ots.c": "test_ots$|cli_ots",
    "src/ots_convert.c": "test_ots$|cli_ots",
    "src/ots_read.c": "test_ots$|test_ots_stream|cli_ots",
    "src/ots_rules.c": "test_ots$|test_ots_stream",
    "src/ots_write.c": "test_ots$|cli_ots",
    "src/pose_cache.c": "test_pose_cache|test_validate_stream|cli_ospc",
    "src/pose_writer.c": "test_pose_writer|cli_recover$|test_survivors",
    "src/replay.c": "test_replay$|test_validate_stream|cli_ostm",
    "src/replay_run.c": "test_replay$|cli_ostm|cli_verify",
    "src/replay_writer.c": "test_replay_writer|cli_recover_ostm",
    "src/sim.c": "test_sim|test_replay$",
    "src/sim_input.c": "test_sim|cli_ostm",
    "src/soa_scene.c": "test_soa_scene|cli_box3d",
    "src/soa_rules.c": "test_soa_world|test_soa_scene",
    "src/soa_scene_world.c": "test_soa_scene|test_soa_world",
    "src/soa_world.c": "test_soa_world|test_soa_scene",
    "src/utf8.c": "test_error|test_json_reader|cli_verify",
    "src/version.c": "test_version",
    "tools/onescope/args.c": "cli_args",
    "tools/onescope/cli.c": "cli_args|cli_ospc",
    "tools/onescope/cmd_box3d_dump.c": "cli_box3d",
    "tools/onescope/cmd_convert.c": "cli_ots|cli_ospc",
    "tools/onescope/cmd_diff.c": "cli_diff",
    "tools/onescope/cmd_files.c": "cli_ospc|cli_ostm|cli_ots|cli_validate_stream",
    "tools/onescope/cmd_gen_testdata.c": "cli_ostm",
    "tools/onescope/cmd_ghost.c": "cli_ghost",
    "tools/onescope/cmd_live.c": "cli_live",
    "tools/onescope/cmd_plot.c": "cli_plot",
    "tools/onescope/cmd_recover.c": "cli_recover|cli_survivors",
    "tools/onescope/cmd_replay.c": "cli_ostm",
    "tools/onescope/cmd_verify.c": "cli_verify|cli_survivors",
    "tools/onescope/fmt_osls.c": "cli_live",
    "tools/onescope/fmt_ospc.c": "cli_ospc|cli_dump_poses",
    "tools/onescope/fmt_ostm.c": "cli_ostm",
    "tools/onescope/fmt_ots.c": "cli_ots",
    "tools/onescope/main.c": "cli_args",
}

REL_FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
FUNC_START = re.compile(r"^[A-Za-z_][\w \*]*?\b([A-Za-z_]\w*)\(")


def code_mask(text):
    """text with comments, strings and character literals blanked to spaces (same length)."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def skipped_lines(raw_lines, code_lines, rel):
    """Indices of lines never mutated: preprocessor, tables, excluded functions and lines."""
    skip = set()
    funcs = EXCLUDE_FUNCS.get(rel, set())
    in_pp = in_table = in_func = False
    depth = 0
    for i, code in enumerate(code_lines):
        s = code.strip()
        if in_pp or s.startswith("#"):
            skip.add(i)
            in_pp = code.rstrip().endswith("\\")
            continue
        m = FUNC_START.match(code)
        if m and depth == 0 and not s.endswith(";"):
            in_func = m.group(1) in funcs
        if depth == 0 and re.search(r"=\s*\{\s*$|=\s*\{.*\}\s*;", code) and "static" in code or \
                (depth == 0 and re.search(r"\[\w*\]\s*=\s*\{", code)):
            in_table = True
        if in_table or in_func or EXCLUDE_LINE.search(raw_lines[i]):
            skip.add(i)
        depth += code.count("{") - code.count("}")
        if depth <= 0:
            depth = 0
            if in_table and ";" in code:
                in_table = False
            if s.startswith("}"):
                in_func = False
    return skip


def matching_paren(code, open_at):
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "(":
            depth += 1
        elif code[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    return -1


def line_mutants(rel, lineno, raw, code, next_code):
    """(kind, start, end, replacement, why) on one line; start/end index raw."""
    found = []
    # rel: one operator token at a time, not << >> -> <<= >>=
    for m in re.finditer(r"(?<![<>=!\-])(<=|>=|==|!=|<|>)(?![<>=])", code):
        op = m.group(1)
        before = code[: m.start()].rstrip()
        if op in "<>" and (before.endswith("-") or before.endswith("include")):
            continue
        found.append(("rel", m.start(), m.end(), REL_FLIP[op], "%s became %s" % (op, REL_FLIP[op])))
    # const: integer literals, not parts of names or floating constants
    for m in re.finditer(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)(?![\w.])", code):
        lit, suffix = m.group(1), m.group(2)
        after = code[m.end():m.end() + 1]
        before = code[: m.start()].rstrip()
        if after in ("e", "E") or before.endswith("[") and code[m.end():].lstrip().startswith("]") \
                and re.match(r"^\s*(static\s+|const\s+)*[\w ]+\w+\s*\[", code):
            continue  # a declared array's size: an equivalent mutant more often than not
        value = int(lit, 16) if lit[:2] in ("0x", "0X") else int(lit, 10)
        if lit.startswith("0") and len(lit) > 1 and lit[1] not in "xX":
            value = int(lit, 8)
        for delta in (1, -1):
            v = value + delta
            if v < 0:
                continue
            text = ("0x%X" % v if lit[:2] in ("0x", "0X") else str(v)) + suffix
            found.append(("const", m.start(), m.end(), text, "%s became %s" % (lit + suffix, text)))
    # ret: an if guarding a return or goto, on this line or the next, disabled
    m = re.search(r"\bif\s*\(", code)
    if m:
        close = matching_paren(code, m.end() - 1)
        rest = code[close + 1:].strip() if close > 0 else ""
        body = rest if rest and rest != "{" else next_code.strip()
        if close > 0 and re.match(r"(return|goto)\b", body) or \
                close > 0 and rest == "{" and re.match(r"(return|goto)\b", next_code.strip()):
            cond = raw[m.end():close]
            found.append(("ret", m.end() - 1, close + 1, "(0 && (%s))" % cond,
                          "the check before a %s removed" % body.split()[0].rstrip(";")))
    # logic
    for m in re.finditer(r"&&|\|\|", code):
        op = m.group(0)
        other = "||" if op == "&&" else "&&"
        found.append(("logic", m.start(), m.end(), other, "%s became %s" % (op, other)))
    return found


def snippet(raw, start, end, repl):
    """from/to with enough of the line around the change that `from` occurs once in it."""
    lo, hi = start, end
    while raw.count(raw[lo:hi]) != 1 or raw[lo:hi].strip() != raw[lo:hi] or hi - lo < 3:
        if lo == 0 and hi == len(raw):
            break
        lo, hi = max(0, lo - 1), min(len(raw), hi + 1)
    while lo > 0 and (raw[lo - 1].isalnum() or raw[lo - 1] == "_"):  # whole words, to read
        lo -= 1
    while hi < len(raw) and (raw[hi].isalnum() or raw[hi] == "_"):
        hi += 1
    return raw[lo:hi], raw[lo:start] + repl + raw[end:hi]


def mutants_of(rel):
    text = open(os.path.join(HERE, rel), encoding="utf-8").read()
    raw_lines = text.split("\n")
    code_lines = code_mask(text).split("\n")
    skip = skipped_lines(raw_lines, code_lines, rel)
    out = []
    for i, code in enumerate(code_lines):
        if i in skip or not code.strip():
            continue
        nxt = code_lines[i + 1] if i + 1 < len(code_lines) else ""
        counts = {}
        for kind, s, e, repl, why in line_mutants(rel, i + 1, raw_lines[i], code, nxt):
            counts[kind] = counts.get(kind, 0) + 1
            frm, to = snippet(raw_lines[i], s, e, repl)
            ident = "%s:%d:%s:%d" % (rel, i + 1, kind, counts[kind])
            out.append({"id": ident, "why": "%s: %s" % (ident, why), "file": rel,
                        "line": i + 1, "from": frm, "to": to})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sample", type=int, default=0, help="keep N mutants (0: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kinds", default="rel,const,ret,logic")
    ap.add_argument("--files", default="", help="only files whose path contains this")
    ap.add_argument("--count", action="store_true", help="print counts per file and kind only")
    a = ap.parse_args()
    kinds = set(a.kinds.split(","))
    files = []
    for d in ("src", "tools/onescope"):
        files += sorted(d + "/" + f for f in os.listdir(os.path.join(HERE, d)) if f.endswith(".c"))
    allm = []
    for f in files:
        if a.files in f:
            allm += [m for m in mutants_of(f) if m["id"].split(":")[2] in kinds]
    if a.count:
        per = {}
        for m in allm:
            per[m["file"]] = per.get(m["file"], 0) + 1
        for f in sorted(per):
            print("%5d %s" % (per[f], f))
        print("%5d total" % len(allm))
        return 0
    chosen = allm
    if a.sample and a.sample < len(allm):
        rng = random.Random(a.seed)
        chosen = rng.sample(allm, a.sample)
        # kept in the shuffled order: any first K of the list are a sample of K too
    w = sys.stdout.write
    w("# Generated by scripts/mutagen.py %s (%d of %d mutants); plant with\n" %
      (" ".join(sys.argv[1:]), len(chosen), len(allm)))
    w("# bash scripts/mutate.sh -l THIS_FILE\n\n")
    for m in chosen:
        w("why: %s\nfile: %s\nline: %d\nsuites: %s\nfrom: %s\nto: %s\n\n" %
          (m["why"], m["file"], m["line"], SUITES.get(m["file"], ""), m["from"], m["to"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
