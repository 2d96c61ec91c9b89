#!/usr/bin/env python3
"""Mutation fuzzer for coda's tools (coda-opt, coda-translate, coda-run).

Run `scripts/fuzz.py --help` for what it does; the description below is its help text.
Standard library only.
"""

import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DESCRIPTION = """\
Mutation fuzzer for coda's tools, in the manner of LLVM/MLIR fuzzing: it takes MLIR programs
(by default every *.mlir under examples/ and test/ of the repository, except test/gpu and tests
that expect a crash ('not --crash'), each file split on '// -----' lines and on split-file
'//--- NAME' markers), applies one or two small
textual mutations to one of them (integer literals and shape dimensions replaced by edge values
such as 0, -1, 2^31, 2^63-1; element types swapped; a tensor dimension made 0 or '?'; lines
deleted, duplicated or swapped; truncation; float constants made nan/inf/-0.0/1e38; SSA names
swapped within a line; affine dimensions d0/d1 exchanged), and throws each mutant at the tools.

Each mutant is first parsed with `coda-opt MUTANT -o /dev/null`. Mutants that parse are then
run through `coda-opt --coda-fuse`, `--coda-expand`, `--coda-fuse-report` and
`--coda-report-traffic` (each pass's output is parsed again), `coda-translate --coda-to-cuda`
(on the mutant and on its fused form) and `coda-run` (with --max-memory 1G where coda-run has
that option). Every tool runs in its own process group under a 4 GiB address-space limit
(RLIMIT_AS; none for AddressSanitizer builds) and is killed after --timeout seconds.

Every tool run is classified as
  ok                   exit 0 (and, for coda-opt passes, the output parses again);
  diagnosed            non-zero exit with an 'error:' diagnostic and no output file left;
  upstream             a crash inside MLIR's own parser that is known and reported upstream
                       (UPSTREAM_CRASHES below: MLIR 22's dense-array parser on array<index:
                       ...>, linalg.transpose's and linalg.broadcast's parsers on a malformed
                       permutation or dimension list,
                       linalg.batch_matmul's on operands of index and float types); counted and
                       listed, but coda cannot catch it;
and the following classes are findings:
  crash                killed by a signal, exit 132..139, or a stack dump, LLVM ERROR,
                       assertion or sanitizer report on stderr;
  hang                 the run took longer than --timeout (for coda-run only where it runs
                       the unmutated program within a quarter of that: the CUDA tests'
                       realistic shapes take minutes in its interpreter; coda-run is not run
                       on their mutants, counted as 'skipped');
  partial-output       non-zero exit but a non-empty -o file was left behind;
  undiagnosed-failure  non-zero exit without any 'error:' line on stderr;
  unparsable-output    a coda-opt pass succeeded but its output does not parse.
Findings are deduplicated by (class, tool, signature); the signature of a crash is its reason
(assertion, LLVM ERROR, signal) and the first stack frame that names coda or mlir::, that of the
others the first 'error:' line without its file position. One reproducer per signature is kept
under OUT/<class>/<tool>-<hash>.mlir with a .txt beside it (command, exit status, stderr).

The mutants are a pure function of (seed, corpus): mutant number i is always the same program,
the time budget only decides how many are tried (--max-mutants N tries exactly N). Exit status:
0 without findings, 1 with findings, 2 on usage errors. The summary's line 'findings: N' counts
unique findings. The default run is short (120 s); a longer one is e.g.

  scripts/fuzz.py --seconds 1800
  scripts/fuzz.py --seconds 1800 --seed 7 --jobs 2 --out /tmp/fuzz7
"""

# --------------------------------------------------------------------------------------------
# Corpus

SPLIT_RE = re.compile(r"^// -----.*$", re.M)
SPLIT_FILE_RE = re.compile(r"^//--- .*$", re.M)


def load_corpus(paths, skip_crash_tests=False):
    """Returns [(name, text)] for every program of the given files/directories. With
    skip_crash_tests, files whose RUN lines expect a crash ('not --crash') are left out: their
    mutants would crash the way the test wants."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames.sort()
                for f in filenames:
                    if f.endswith(".mlir"):
                        files.append(os.path.join(dirpath, f))
        elif os.path.isfile(path):
            files.append(path)
        else:
            raise FileNotFoundError(path)
    files = sorted(set(files))
    programs = []
    for f in files:
        with open(f, "rb") as fh:
            text = fh.read().decode("utf-8", errors="replace")
        if skip_crash_tests and "not --crash" in text:
            continue
        rel = os.path.relpath(f, ROOT)
        n = 0
        for part in SPLIT_RE.split(text):
            for sub in SPLIT_FILE_RE.split(part):
                # Parts that hold nothing but comments and blank lines are not programs.
                if not any(l.strip() and not l.lstrip().startswith("//") for l in sub.splitlines()):
                    continue
                programs.append(("%s#%d" % (rel, n), sub))
                n += 1
    return programs


def default_corpus_paths():
    paths = [os.path.join(ROOT, "examples")]
    test = os.path.join(ROOT, "test")
    for entry in sorted(os.listdir(test)) if os.path.isdir(test) else []:
        path = os.path.join(test, entry)
        if entry == "gpu" or (os.path.isfile(path) and not entry.endswith(".mlir")):
            continue
        paths.append(path)
    return [p for p in paths if os.path.exists(p)]


# --------------------------------------------------------------------------------------------
# Mutators: each takes (rng, text) and returns the mutated text, or None where it does not apply.

INT_RE = re.compile(r"(?<![A-Za-wyz0-9_.%#@^$+\-])-?\d+(?![0-9A-Za-wyz_.])")
ELEM_TYPES = ["f32", "bf16", "f16", "f64", "i1", "i8", "i32", "i64", "index"]
ELEM_RE = re.compile(r"(?:(?<![\w%#@^$])|(?<=[\d?]x))(?:bf16|f16|f32|f64|i1|i8|i32|i64|index)(?!\w)")
TENSOR_DIMS_RE = re.compile(r"tensor<((?:(?:\d+|\?)x)+)")
FLOAT_RE = re.compile(r"(?<![\w.])-?\d+\.\d*(?:[eE][+-]?\d+)?(?![\w.])|(?<![\w.])0x[0-9A-Fa-f]+(?![\w.])")
SSA_RE = re.compile(r"%[A-Za-z0-9_$.\-]+")
AFFINE_DIM_RE = re.compile(r"(?<![\w%#@^$])d(\d+)(?!\w)")
FLOAT_TYPE_RE = re.compile(r":\s*(bf16|f16|f32|f64)\b")

INT_VALUES = ["0", "1", "-1", "2", "3", "7", "2147483648", "4294967312",
              "4611686018427387904", "9223372036854775807"]
HEX_SPECIALS = {
    "f32": {"nan": "0x7FC00000", "inf": "0x7F800000", "-inf": "0xFF800000"},
    "f64": {"nan": "0x7FF8000000000000", "inf": "0x7FF0000000000000", "-inf": "0xFFF0000000000000"},
    "f16": {"nan": "0x7E00", "inf": "0x7C00", "-inf": "0xFC00"},
    "bf16": {"nan": "0x7FC0", "inf": "0x7F80", "-inf": "0xFF80"},
}


def _splice(text, start, end, new):
    return text[:start] + new + text[end:]


def _pick_match(rng, regex, text):
    matches = list(regex.finditer(text))
    return rng.choice(matches) if matches else None


def _code_lines(lines):
    """Indices of lines that are neither blank nor comments."""
    return [i for i, l in enumerate(lines) if l.strip() and not l.lstrip().startswith("//")]


def _replace_all(regex, text, old, new):
    return regex.sub(lambda m: new if m.group(0) == old else m.group(0), text)


def mut_int(rng, text):
    m = _pick_match(rng, INT_RE, text)
    if not m:
        return None
    new = str(rng.randint(0, 64)) if rng.random() < 0.15 else rng.choice(INT_VALUES)
    if rng.random() < 0.5:
        # Every occurrence of the literal: shapes stay consistent, so more mutants get past the
        # verifier into the passes.
        return _replace_all(INT_RE, text, m.group(0), new)
    return _splice(text, m.start(), m.end(), new)


def mut_elem_type(rng, text):
    m = _pick_match(rng, ELEM_RE, text)
    if not m:
        return None
    new = rng.choice([t for t in ELEM_TYPES if t != m.group(0)])
    if rng.random() < 0.5:
        return _replace_all(ELEM_RE, text, m.group(0), new)
    return _splice(text, m.start(), m.end(), new)


def mut_tensor_dim(rng, text):
    m = _pick_match(rng, TENSOR_DIMS_RE, text)
    if not m:
        return None
    dims = m.group(1)[:-1].split("x")
    i = rng.randrange(len(dims))
    old, new = dims[i], rng.choice(["0", "?"])
    if rng.random() < 0.5 and old != "?":
        # That extent in every tensor type of the program, so that shapes stay consistent.
        def sub(t):
            ds = t.group(1)[:-1].split("x")
            return "tensor<" + "x".join(new if d == old else d for d in ds) + "x"
        return TENSOR_DIMS_RE.sub(sub, text)
    dims[i] = new
    return _splice(text, m.start(1), m.end(1), "x".join(dims) + "x")


def mut_delete_line(rng, text):
    lines = text.split("\n")
    idx = _code_lines(lines)
    if not idx:
        return None
    del lines[rng.choice(idx)]
    return "\n".join(lines)


def mut_duplicate_line(rng, text):
    lines = text.split("\n")
    idx = _code_lines(lines)
    if not idx:
        return None
    i = rng.choice(idx)
    lines.insert(i, lines[i])
    return "\n".join(lines)


def mut_swap_lines(rng, text):
    lines = text.split("\n")
    idx = _code_lines(lines)
    if len(idx) < 2:
        return None
    i, j = rng.sample(idx, 2)
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def mut_truncate(rng, text):
    if len(text) < 2:
        return None
    return text[:rng.randrange(1, len(text))]


def mut_float(rng, text):
    m = _pick_match(rng, FLOAT_RE, text)
    if not m:
        return None
    choice = rng.choice(["nan", "inf", "-inf", "0.0", "-0.0", "1e38", "-1e38", "1.0e-45"])
    if choice in ("nan", "inf", "-inf"):
        # MLIR spells special values as hexadecimal bit patterns of the literal's type; the bare
        # word is tried too (the parser should reject it cleanly).
        line_end = text.find("\n", m.end())
        t = FLOAT_TYPE_RE.search(text, m.end(), line_end if line_end >= 0 else len(text))
        if t and rng.random() < 0.8:
            choice = HEX_SPECIALS[t.group(1)][choice]
    return _splice(text, m.start(), m.end(), choice)


def mut_swap_ssa(rng, text):
    lines = text.split("\n")
    candidates = []
    for i, l in enumerate(lines):
        if l.lstrip().startswith("//"):
            continue
        names = set(m.group(0) for m in SSA_RE.finditer(l))
        if len(names) >= 2:
            candidates.append(i)
    if not candidates:
        return None
    i = rng.choice(candidates)
    names = sorted(set(m.group(0) for m in SSA_RE.finditer(lines[i])))
    a, b = rng.sample(names, 2)
    lines[i] = SSA_RE.sub(lambda m: b if m.group(0) == a else a if m.group(0) == b else m.group(0),
                          lines[i])
    return "\n".join(lines)


def mut_affine_dim(rng, text):
    matches = list(AFFINE_DIM_RE.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    d = int(m.group(1))
    top = max(int(x.group(1)) for x in matches)
    new = rng.choice([x for x in range(0, top + 2) if x != d] or [d + 1])
    return _splice(text, m.start(), m.end(), "d%d" % new)


MUTATORS = [
    ("int", mut_int, 4),
    ("elem-type", mut_elem_type, 2),
    ("tensor-dim", mut_tensor_dim, 2),
    ("delete-line", mut_delete_line, 1),
    ("duplicate-line", mut_duplicate_line, 1),
    ("swap-lines", mut_swap_lines, 1),
    ("truncate", mut_truncate, 0.5),
    ("float", mut_float, 1),
    ("swap-ssa", mut_swap_ssa, 1),
    ("affine-dim", mut_affine_dim, 1),
]
_MUT_WEIGHTS = [w for _, _, w in MUTATORS]


def make_mutant(seed, index, programs):
    """Mutant number `index` of `seed`: (source name, [mutator names], text). A pure function."""
    rng = random.Random("coda-fuzz:%d:%d" % (seed, index))
    name, text = programs[rng.randrange(len(programs))]
    applied = []
    want = 1 if rng.random() < 0.6 else 2
    for _ in range(12):
        if len(applied) == want:
            break
        mname, fn, _w = rng.choices(MUTATORS, weights=_MUT_WEIGHTS)[0]
        new = fn(rng, text)
        if new is None or new == text:
            continue
        text = new
        applied.append(mname)
    return name, applied, text


# --------------------------------------------------------------------------------------------
# Running and classifying

FINDING_CLASSES = ["crash", "hang", "partial-output", "undiagnosed-failure", "unparsable-output"]
# "skipped": coda-run is not a judge of mutants of a program that it cannot run within --timeout
# itself (the CUDA tests' realistic shapes take minutes in the CPU interpreter).
CLASSES = ["ok", "diagnosed"] + FINDING_CLASSES + ["upstream", "skipped"]
NOT_FINDINGS = ("ok", "diagnosed", "upstream", "skipped")
# Crashes in MLIR 22.1.8's parser, reported upstream with the reproducers in docs/testing.md:
# (the parser's stack-trace entry, the crashing frame).
UPSTREAM_CRASHES = [
    ("MLIR Parser", "mlir::FloatType::getWidth"),  # array<index: 1>
    # linalg.transpose's permutation, linalg.broadcast's dimensions = [1, x]: a null attribute.
    ("custom op parser 'linalg.transpose'", "mlir::NamedAttrList::set"),
    ("custom op parser 'linalg.broadcast'", "mlir::NamedAttrList::set"),
    # linalg.batch_matmul of an index and an f32 operand: its region builder's cast fails.
    ("custom op parser 'linalg.batch_matmul'", "could not cast operand of type"),
]
CRASH_MARKERS = ["Stack dump", "PLEASE submit a bug report", "PLEASE report this crash", "LLVM ERROR", "Assertion",
                 "AddressSanitizer", "runtime error:", "UndefinedBehaviorSanitizer", "malloc():",
                 "double free", "Segmentation fault", "terminate called", "std::bad_alloc"]
CRASH_CODES = set(range(132, 140))
MEMORY_LIMIT = 4 << 30
# The address-space limit the tools run under: none for AddressSanitizer builds
# (scripts/sanitize.sh), whose shadow memory alone reserves terabytes of addresses.
address_limit = MEMORY_LIMIT

POS_RE = re.compile(r"^.*?:\d+:\d+:\s*")
PRETTY_RE = re.compile(r"^\d+\.\t")
BANNER_RE = re.compile(r"PLEASE (submit|report)|^Stack dump|^\s*#\d+\s")
FRAME_RE = re.compile(r"^\s*#\d+\s+0x[0-9a-fA-F]+\s+(?:in\s+)?(.*)$")
REASON_RES = [re.compile(p) for p in (
    r"Assertion `.*' failed", r"LLVM ERROR:.*", r"ERROR: AddressSanitizer: [\w-]+",
    r"runtime error:.*", r"terminate called.*", r"malloc\(\):.*", r"double free.*")]


def _limit_memory():
    if address_limit:
        resource.setrlimit(resource.RLIMIT_AS, (address_limit, address_limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class ToolError(Exception):
    pass


class Run:
    __slots__ = ("tool", "cmd", "rc", "stderr", "out", "timed_out", "cls", "signature", "extra",
                 "seconds")

    def __init__(self, tool, cmd, rc, stderr, out, timed_out, seconds=0.0):
        self.tool, self.cmd, self.rc, self.stderr, self.out = tool, cmd, rc, stderr, out
        self.timed_out, self.seconds = timed_out, seconds
        self.cls = self.signature = None
        self.extra = {}


def run_tool(tool, cmd, out, timeout, env, stdin_path=None):
    """Runs cmd in its own process group under the memory limit; returns a Run."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    start = time.monotonic()
    try:
        for attempt in range(31):
            try:
                proc = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, env=env, start_new_session=True,
                                        preexec_fn=_limit_memory)
                break
            except OSError as e:
                # The tool may be being relinked by a build right now: wait for it a little.
                if attempt == 30:
                    raise ToolError("cannot run %s: %s" % (cmd[0], e))
                time.sleep(1)
    finally:
        if stdin_path:
            stdin.close()
    timed_out = False
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        _, err = proc.communicate()
    stderr = err.decode("utf-8", errors="replace")
    return Run(tool, cmd, proc.returncode, stderr, out, timed_out, time.monotonic() - start)


def first_error_line(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            return line
    return None


def crash_signature(run):
    lines = run.stderr.splitlines()
    reason = None
    for line in lines:
        for r in REASON_RES:
            m = r.search(line)
            if m:
                reason = m.group(0)
                break
        if reason:
            break
    if reason is None:
        reason = ("signal %d" % -run.rc) if run.rc is not None and run.rc < 0 else "exit %s" % run.rc
    reason = re.sub(r"0x[0-9a-fA-F]+", "0x…", reason)
    frame = None
    for line in lines:
        m = FRAME_RE.match(line)
        if not m:
            continue
        fn = m.group(1)
        # Drop the module path and offset that follow the function name.
        fn = re.sub(r"\s*\(/[^)]*\)\s*$", "", fn)
        fn = re.sub(r"\s+/\S+:\d+(:\d+)?$", "", fn)
        fn = re.sub(r"\s*\+\s*\d+$", "", fn)
        if "coda" in fn or "mlir::" in fn:
            frame = fn.strip()
            break
    if frame is None:
        # No symbolized frame of ours (e.g. the crash is in JIT-compiled code): the innermost
        # entry of LLVM's pretty stack trace ("1.\tcoda-run: running 'FILE'"), else the first
        # line of stderr that is not the bug-report banner.
        entries = [l.split(".", 1)[1].strip() for l in lines
                   if PRETTY_RE.match(l) and "Program arguments:" not in l]
        if entries:
            frame = entries[-1]
        else:
            frame = next((l.strip() for l in lines if l.strip() and not BANNER_RE.search(l)), "")
            frame = POS_RE.sub("", frame)
        frame = re.sub(r"'[^']*'|\S*/\S+", "FILE", frame).strip()
    if not frame or frame in reason:
        return _printable(reason)[:400]
    return _printable(reason + " @ " + frame)[:400]


def error_signature(run):
    line = first_error_line(run.stderr)
    if line is None:
        first = next((l.strip() for l in run.stderr.splitlines() if l.strip()), None)
        return _printable("exit %s: %s" % (run.rc, first) if first else "exit %s (no stderr)" % run.rc)
    return _printable(POS_RE.sub("", line))[:400]


def _printable(s):
    return re.sub(r"[\x00-\x1f\x7f]+", " ", s).strip()


def classify(run):
    """Sets run.cls and run.signature (the latter for findings only)."""
    err = run.stderr
    if run.timed_out:
        run.cls, run.signature = "hang", "timeout"
    elif (run.rc < 0 or run.rc in CRASH_CODES) or any(m in err for m in CRASH_MARKERS):
        run.cls, run.signature = "crash", crash_signature(run)
        if any(entry in err and frame in err for entry, frame in UPSTREAM_CRASHES):
            run.cls = "upstream"
    elif run.rc == 0:
        run.cls = "ok"
    elif run.out and run.out != os.devnull and os.path.exists(run.out) \
            and os.path.getsize(run.out) > 0:
        run.cls, run.signature = "partial-output", error_signature(run)
    elif first_error_line(err) is not None:
        run.cls = "diagnosed"
    else:
        run.cls, run.signature = "undiagnosed-failure", error_signature(run)
    return run


class Fuzzer:
    def __init__(self, args, tools, programs, pass_flags, run_flags):
        self.args = args
        self.tools = tools
        self.programs = programs
        self.program_text = dict(programs)
        self.pass_flags = pass_flags   # [(tool name, flag)]
        self.run_flags = run_flags
        self.env = dict(os.environ)
        # No crash-report files or core dumps from the tools; symbolized stack dumps are kept.
        self.env["LLVM_DISABLE_CRASH_REPORT"] = "1"
        self.lock = threading.Lock()
        self.counts = {}           # tool -> class -> n
        self.findings = {}         # (class, tool, signature) -> dict
        self.tried = self.parsed = 0
        self.seconds = {}          # tool -> seconds its runs took
        self.slow = {}             # program name -> whether coda-run exceeds --timeout/4 on it
        self.workdir = tempfile.mkdtemp(prefix="coda-fuzz-")

    # One mutant: every tool run it takes, recorded.
    def fuzz_one(self, index):
        name, applied, text = make_mutant(self.args.seed, index, self.programs)
        d = tempfile.mkdtemp(prefix="m%d-" % index, dir=self.workdir)
        try:
            mutant = os.path.join(d, "mutant.mlir")
            with open(mutant, "w", encoding="utf-8", errors="replace") as fh:
                fh.write(text)
            runs = self._runs(d, mutant, name)
            self._record(index, name, applied, text, runs)
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def _runs(self, d, mutant, name):
        opt, translate, crun = self.tools["coda-opt"], self.tools["coda-translate"], self.tools["coda-run"]
        t = self.args.timeout
        runs = []
        parse = classify(run_tool("coda-opt-parse", [opt, mutant, "-o", os.devnull], None, t, self.env))
        runs.append(parse)
        if parse.cls != "ok":
            return runs
        for tool, flag in self.pass_flags:
            out = os.path.join(d, tool + ".out.mlir")
            r = classify(run_tool(tool, [opt, flag, mutant, "-o", out], out, t, self.env))
            runs.append(r)
            if r.cls != "ok":
                continue
            re_run = run_tool(tool, [opt, out, "-o", os.devnull], None, t, self.env)
            classify(re_run)
            r.seconds += re_run.seconds
            if re_run.cls != "ok":
                # The pass's output does not parse (or the parser crashed/hung on it).
                if re_run.cls in ("diagnosed", "undiagnosed-failure", "partial-output"):
                    r.cls, r.signature = "unparsable-output", error_signature(re_run)
                else:
                    r.cls, r.signature = re_run.cls, re_run.signature
                r.stderr += "\n--- reparse: %s (exit %s)\n%s" % (
                    " ".join(re_run.cmd), re_run.rc, re_run.stderr)
                r.extra["output"] = _read(out)
                continue
            if tool == "coda-opt-fuse":
                cu = os.path.join(d, "fused.cu")
                tr = classify(run_tool("coda-translate-fused",
                                       [translate, "--coda-to-cuda", out, "-o", cu], cu, t, self.env))
                if tr.cls not in NOT_FINDINGS:
                    tr.extra["input"] = _read(out)
                runs.append(tr)
        cu = os.path.join(d, "out.cu")
        runs.append(classify(run_tool("coda-translate", [translate, "--coda-to-cuda", mutant, "-o", cu],
                                      cu, t, self.env)))
        # A coda-run timeout is a finding only where coda-run runs the program the mutant came
        # from within a quarter of --timeout (room for mutants that do more work). Programs whose
        # shapes promise much work are asked first, the others only once one of their mutants
        # times out; each program once.
        probe_seconds = 0.0
        if name not in self.slow and estimated_work(self.program_text[name]) > 1e10:
            probe_seconds = self._probe(d, name)
        if self.slow.get(name):
            r = Run("coda-run", [], 0, "", None, False, probe_seconds)
            r.cls = "skipped"
            runs.append(r)
            return runs
        r = classify(run_tool("coda-run", [crun] + self.run_flags + [mutant], None, t, self.env))
        r.seconds += probe_seconds
        if r.cls == "hang" and name not in self.slow:
            r.seconds += self._probe(d, name)
        if r.cls == "hang" and self.slow.get(name):
            r.cls, r.signature = "skipped", None
        runs.append(r)
        return runs

    def _probe(self, d, name):
        """Runs coda-run on the original program `name`; records whether it timed out."""
        original = os.path.join(d, "original.mlir")
        with open(original, "w", encoding="utf-8", errors="replace") as fh:
            fh.write(self.program_text[name])
        limit = self.args.timeout / 4
        base = run_tool("coda-run", [self.tools["coda-run"]] + self.run_flags + [original], None,
                        limit, self.env)
        self.slow[name] = base.timed_out
        if base.timed_out:
            print("  coda-run takes over %g s on %s itself: its mutants are not run"
                  % (limit, name), flush=True)
        return base.seconds

    def _record(self, index, name, applied, text, runs):
        with self.lock:
            self.tried += 1
            if runs[0].cls == "ok":
                self.parsed += 1
            for r in runs:
                c = self.counts.setdefault(r.tool, {})
                c[r.cls] = c.get(r.cls, 0) + 1
                self.seconds[r.tool] = self.seconds.get(r.tool, 0.0) + r.seconds
                if r.cls in NOT_FINDINGS:
                    continue
                key = (r.cls, r.tool, r.signature)
                f = self.findings.get(key)
                if f is not None:
                    f["count"] += 1
                    continue
                self.findings[key] = f = {"count": 1, "path": self._save(index, name, applied, text, r)}
                print("  new finding: %s %s: %s" % (r.cls, r.tool, r.signature), flush=True)

    def _save(self, index, name, applied, text, r):
        h = hashlib.sha1(("%s\0%s\0%s" % (r.cls, r.tool, r.signature)).encode()).hexdigest()[:10]
        d = os.path.join(self.args.out, r.cls)
        os.makedirs(d, exist_ok=True)
        base = os.path.join(d, "%s-%s" % (r.tool, h))
        repro = base + ".mlir"
        with open(repro, "w", encoding="utf-8", errors="replace") as fh:
            fh.write(text)
        tmp_input = next((a for a in r.cmd if a.endswith("mutant.mlir")), None)
        cmd = []
        for a in r.cmd:
            if a.endswith("mutant.mlir"):
                a = repro
            elif r.out and a == r.out:
                a = "OUT" + os.path.splitext(a)[1]
            cmd.append(a)
        if r.tool == "coda-translate-fused":
            fused = base + ".fused.mlir"
            with open(fused, "w", encoding="utf-8", errors="replace") as fh:
                fh.write(r.extra.get("input", ""))
            cmd = [self.tools["coda-opt"], "--coda-fuse", repro, "|", self.tools["coda-translate"],
                   "--coda-to-cuda", "-o", "OUT.cu", "   # fused program: " + fused]
        if "output" in r.extra:
            with open(base + ".out.mlir", "w", encoding="utf-8", errors="replace") as fh:
                fh.write(r.extra["output"])
        with open(base + ".txt", "w", encoding="utf-8", errors="replace") as fh:
            fh.write("class: %s\ntool: %s\nsignature: %s\n" % (r.cls, r.tool, r.signature))
            fh.write("mutant: #%d of seed %d, from %s by %s\n" % (
                index, self.args.seed, name, ", ".join(applied) or "(none)"))
            fh.write("command: %s\n" % " ".join(cmd))
            fh.write("exit status: %s%s\n" % (r.rc, " (timed out after %s s)" % self.args.timeout
                                              if r.timed_out else ""))
            fh.write("--- stderr\n%s" % r.stderr.replace(tmp_input or "\0", repro))
        return repro

    def close(self):
        shutil.rmtree(self.workdir, ignore_errors=True)


def estimated_work(text):
    """A rough bound on coda-run's work: the largest tensor's size times the largest extent."""
    elems = extent = 1
    for m in TENSOR_DIMS_RE.finditer(text):
        n = 1
        for dim in m.group(1)[:-1].split("x"):
            if dim != "?":
                n *= int(dim)
                extent = max(extent, int(dim))
        elems = max(elems, n)
    return elems * extent


def _read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


# --------------------------------------------------------------------------------------------
# Tools

def tool_help(path):
    try:
        p = subprocess.run([path, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=60, preexec_fn=_limit_memory)
        return p.stdout.decode("utf-8", errors="replace")
    except (OSError, subprocess.TimeoutExpired):
        return ""


def has_option(help_text, flag):
    return re.search(r"(?m)^\s*" + re.escape(flag) + r"(?![\w-])", help_text) is not None


def main(argv=None):
    default_build = os.environ.get("CODA_BUILD_DIR") or os.path.join(ROOT, "build")
    p = argparse.ArgumentParser(prog="scripts/fuzz.py", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=default_build, metavar="DIR",
                   help="build directory whose bin/ holds the tools (default: $CODA_BUILD_DIR, "
                        "else build/ of the repository: %(default)s)")
    p.add_argument("--seconds", type=float, default=120, metavar="S",
                   help="time budget: no new mutant is started after S seconds (default: 120)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the mutants (default: 0)")
    p.add_argument("--out", metavar="DIR",
                   help="where reproducers go (default: fuzz-findings under the build directory)")
    p.add_argument("--jobs", type=int, default=1, metavar="J",
                   help="mutants run at the same time (default: 1)")
    p.add_argument("--timeout", type=float, default=20, metavar="T",
                   help="seconds one tool run may take before it counts as a hang (default: 20)")
    p.add_argument("--max-mutants", type=int, metavar="N",
                   help="try exactly N mutants (mutants 0..N-1), whatever the time budget")
    p.add_argument("--corpus", nargs="+", metavar="PATH",
                   help="MLIR files or directories to mutate (default: examples/ and test/ of "
                        "the repository, test/gpu excepted)")
    args = p.parse_args(argv)

    if args.jobs < 1 or args.timeout <= 0 or args.seconds < 0 or \
            (args.max_mutants is not None and args.max_mutants < 0):
        p.error("--jobs and --timeout must be positive, --seconds and --max-mutants not negative")
    args.build = os.path.abspath(args.build)
    args.out = os.path.abspath(args.out or os.path.join(args.build, "fuzz-findings"))

    tools = {}
    for name in ("coda-opt", "coda-translate", "coda-run"):
        path = os.path.join(args.build, "bin", name)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            print("fuzz.py: error: %s not found (build it: ./scripts/build.sh coda-opt coda-run "
                  "coda-translate, or pass --build)" % path, file=sys.stderr)
            return 2
        tools[name] = path
    global address_limit
    with open(tools["coda-opt"], "rb") as fh:
        if b"libasan.so" in fh.read():
            address_limit = None

    opt_help = tool_help(tools["coda-opt"])
    pass_flags = []
    for tool, flag in (("coda-opt-fuse", "--coda-fuse"), ("coda-opt-expand", "--coda-expand"),
                       ("coda-opt-fuse-report", "--coda-fuse-report"),
                       ("coda-opt-report-traffic", "--coda-report-traffic")):
        if not has_option(opt_help, flag):
            print("fuzz.py: error: coda-opt has no %s pass" % flag, file=sys.stderr)
            return 2
        pass_flags.append((tool, flag))
    if not has_option(tool_help(tools["coda-translate"]), "--coda-to-cuda"):
        print("fuzz.py: error: coda-translate has no --coda-to-cuda", file=sys.stderr)
        return 2
    run_flags = ["--max-memory", "1G"] if has_option(tool_help(tools["coda-run"]), "--max-memory") else []

    try:
        programs = load_corpus(args.corpus or default_corpus_paths(), skip_crash_tests=not args.corpus)
    except FileNotFoundError as e:
        print("fuzz.py: error: no such corpus file or directory: %s" % e, file=sys.stderr)
        return 2
    if not programs:
        print("fuzz.py: error: the corpus holds no programs", file=sys.stderr)
        return 2

    fz = Fuzzer(args, tools, programs, pass_flags, run_flags)
    budget = "%d mutants" % args.max_mutants if args.max_mutants is not None else "%g s" % args.seconds
    print("fuzz: seed %d, %d programs, %s, %d job(s), timeout %g s, coda-run %s, findings in %s"
          % (args.seed, len(programs), budget, args.jobs, args.timeout,
             " ".join(run_flags) or "(no --max-memory)", args.out), flush=True)

    start = time.monotonic()
    last_progress = start

    def more(i):
        if args.max_mutants is not None:
            return i < args.max_mutants
        return time.monotonic() - start < args.seconds

    def progress(force=False):
        nonlocal last_progress
        now = time.monotonic()
        if force or now - last_progress >= 20:
            last_progress = now
            print("fuzz: %.0f s, %d mutants (%.2f/s), %d parsed, %d unique findings"
                  % (now - start, fz.tried, fz.tried / max(now - start, 1e-9), fz.parsed,
                     len(fz.findings)), flush=True)

    interrupted = False
    try:
        i = 0
        if args.jobs == 1:
            while more(i):
                fz.fuzz_one(i)
                i += 1
                progress()
        else:
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                pending = set()
                while True:
                    while len(pending) < args.jobs and more(i):
                        pending.add(pool.submit(fz.fuzz_one, i))
                        i += 1
                    if not pending:
                        break
                    done, pending = concurrent.futures.wait(
                        pending, timeout=5, return_when=concurrent.futures.FIRST_COMPLETED)
                    for fut in done:
                        fut.result()
                    progress()
    except KeyboardInterrupt:
        interrupted = True
        print("fuzz: interrupted", flush=True)
    except ToolError as e:
        print("fuzz.py: error: %s" % e, file=sys.stderr)
        return 2
    finally:
        fz.close()

    elapsed = time.monotonic() - start
    print()
    print("fuzz summary: seed %d, %d mutants tried in %.1f s (%.2f mutants/s), %d parsed, "
          "%d rejected by the parser" % (args.seed, fz.tried, elapsed, fz.tried / max(elapsed, 1e-9),
                                         fz.parsed, fz.tried - fz.parsed))
    tool_names = ["coda-opt-parse"] + [t for t, _ in pass_flags] + \
        ["coda-translate", "coda-translate-fused", "coda-run"]
    header = "%-24s" % "tool" + "".join("%10s" % c[:9] for c in CLASSES)
    print(header)
    for t in tool_names:
        c = fz.counts.get(t, {})
        print("%-24s" % t + "".join("%10d" % c.get(k, 0) for k in CLASSES))
    print("(columns: %s; upstream: known crashes in MLIR's parser; skipped: coda-run not run on "
          "mutants of a program it cannot run within --timeout/4 itself)" % ", ".join(CLASSES))
    spent = sum(fz.seconds.values())
    print("time in tools: %s%s" % (
        ", ".join("%s %.1f s" % (t, fz.seconds.get(t, 0.0)) for t in tool_names),
        "; fuzzer's own: %.1f s" % max(elapsed - spent, 0.0) if args.jobs == 1 else ""))
    occurrences = sum(f["count"] for f in fz.findings.values())
    print("findings: %d" % len(fz.findings))
    if fz.findings:
        print("%d unique findings (%d occurrences):" % (len(fz.findings), occurrences))
        order = sorted(fz.findings.items(),
                       key=lambda kv: (FINDING_CLASSES.index(kv[0][0]), kv[0][1], kv[0][2]))
        for (cls, tool, sig), f in order:
            print("  %s %s (x%d): %s" % (cls, tool, f["count"], sig))
            print("      %s" % f["path"])
    if interrupted:
        return 130
    return 1 if fz.findings else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # The reader of stdout went away (e.g. `| head`).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
