# SPDX-License-Identifier: MIT
"""Python tracing (slog.trace, slog.region, slog.annotate): what is traced
reads back through slog.open as regions with their names, nesting, args,
threads and exceptions; tracing off costs nothing and records nothing."""
import os
import subprocess
import sys
import threading
import time

import pytest

import slog


@pytest.fixture
def trace_path(tmp_path):
    path = tmp_path / "py.slog"
    slog.trace_start(path)
    yield path
    slog.trace_stop()


def regions(path):
    """The states of a finished trace, by start: (name, depth, args, start, end, timeline)."""
    r = slog.open(path)
    assert r.info["complete"]
    df = r.window(args=True).sort_values("start", kind="stable")
    names = dict(zip(r.timelines.id, r.timelines.name))
    return [(n, d, a or {}, s, e, names[t]) for n, d, a, s, e, t in
            zip(df.name, df.depth, df.args, df.start, df.end, df.timeline)]


@slog.trace
def leaf(x):
    return x * 2


@slog.trace(name="outer step")
def outer(n):
    return sum(leaf(i) for i in range(n))


def test_decorator_records_each_call_nested(trace_path):
    assert outer(3) == 6
    slog.trace_stop()
    got = regions(trace_path)
    assert [(n, d) for n, d, *_ in got] == [("outer step", 0)] + [(f"{__name__}.leaf", 1)] * 3
    start, end = got[0][3], got[0][4]
    assert all(start <= s <= e <= end for _, _, _, s, e, _ in got[1:])
    assert outer.__name__ == "outer" and outer.__wrapped__(2) == 2


class Loader:
    def __init__(self):
        self.n = 5

    @slog.trace
    def load(self, k):
        return self.n + k


def test_decorated_method_binds(trace_path):
    assert Loader().load(1) == 6
    slog.trace_stop()
    assert [n for n, *_ in regions(trace_path)] == [f"{__name__}.Loader.load"]


@slog.trace
def fails():
    raise KeyError("boom")


def test_exception_propagates_and_is_recorded(trace_path):
    with pytest.raises(KeyError, match="boom"):
        fails()
    slog.trace_stop()
    (name, depth, args, *_), = regions(trace_path)
    assert name.endswith("fails") and args == {"exception": "KeyError"}


def test_region_args_and_annotations(trace_path):
    with slog.region("load", file="a.h5", n=3) as r:
        with slog.region("parse"):
            assert slog.annotate(rows=10)        # innermost: parse
            assert r.annotate(bytes=4096)        # the outer region, by its handle
    assert not r.annotate(late=1)                # ended
    slog.trace_stop()
    got = {n: (d, a) for n, d, a, *_ in regions(trace_path)}
    assert got == {"load": (0, {"file": "a.h5", "n": 3, "bytes": 4096}),
                   "parse": (1, {"rows": 10})}


def test_region_records_exception(trace_path):
    with pytest.raises(ZeroDivisionError):
        with slog.region("divide", k=1):
            _ = 1 / 0
    slog.trace_stop()
    assert [(n, a) for n, _, a, *_ in regions(trace_path)] == \
        [("divide", {"k": 1, "exception": "ZeroDivisionError"})]


def test_threads_have_their_own_timelines(trace_path):
    def work(i):
        with slog.region("work", i=i):
            leaf(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    work(9)
    slog.trace_stop()
    got = regions(trace_path)
    lines = {a["i"]: tl for n, _, a, _, _, tl in got if n == "work"}
    assert sorted(lines) == [0, 1, 9] and len(set(lines.values())) == 3
    assert lines[9].startswith("main ") and lines[0].startswith("thread ")
    leaves = [(d, tl) for n, d, _, _, _, tl in got if n.endswith("leaf")]
    assert sorted(leaves) == sorted((1, lines[i]) for i in (0, 1, 9))


def test_tracing_off_records_nothing(tmp_path):
    assert slog.trace_file() is None
    assert outer(2) == 2
    with slog.region("nothing", a=1) as r:
        assert not r.annotate(b=2) and not slog.annotate(c=3)
    slog.trace_stop()  # nothing to stop
    assert not list(tmp_path.iterdir())


def test_start_twice_is_an_error(trace_path):
    assert slog.trace_file() == str(trace_path)
    with pytest.raises(RuntimeError, match="already"):
        slog.trace_start(trace_path.parent / "other.slog")


class Unprintable:
    def __repr__(self):
        raise ValueError("no repr")


def test_any_arg_is_recorded_and_never_raises(trace_path):
    """T4: args the writer cannot store are converted when the region begins:
    the block's own exception (or none) is what leaves the `with`."""
    with pytest.raises(KeyError, match="user's"):
        with slog.region("load", data=b"raw\x00"):
            raise KeyError("the user's error")
    nested = {"b": b"x", "s": {1, 2}, "n": 2**70}
    with slog.region("odd", n=10**30, neg=-2**64, s=frozenset(), c=1j, o=Unprintable(),
                     d=nested, t=(1, "a"), long="x" * 1000, nul="a\x00b",
                     big=10**10000) as r:
        nested["b"] = "changed after begin"
        r.annotate(more=b"y", **{"k\x00ey": 1})
        assert slog.annotate(obj=range(3))
    with slog.region("a\x00b", big=2**64 - 1):
        pass
    slog.trace_stop()
    assert slog.trace_lost() == 0
    got = {n: a for n, _, a, *_ in regions(trace_path)}
    assert got["load"] == {"data": "b'raw\\x00'", "exception": "KeyError"}
    odd = got["odd"]
    assert odd.pop("long") == "x" * 1000 and odd.pop("nul") == "a\x00b"
    assert len(odd.pop("big")) <= 256
    assert odd == {"n": "1" + "0" * 30, "neg": str(-2**64), "s": "frozenset()", "c": "1j",
                   "o": "<Unprintable object>", "d": {"b": "b'x'", "s": "{1, 2}", "n": 2**70},
                   "t": [1, "a"], "more": "b'y'", "'k\\x00ey'": 1, "obj": "range(0, 3)"}
    assert got["'a\\x00b'"] == {"big": 2**64 - 1}



def test_numpy_numbers_are_stored_as_numbers(trace_path):
    """numpy's integers and floats (an index from np.random.permutation, an
    array's sum) are numbers.Integral and numbers.Real: stored as the int or
    float they stand for, alone or inside a list or dict (they were stored
    as their repr, '5', so a filter on the arg's value missed them)."""
    import fractions
    np = pytest.importorskip("numpy")
    with slog.region("batch", idx=np.int64(5), u=np.uint64(2**64 - 1), f=np.float32(1.5),
                     q=fractions.Fraction(1, 4), ids=list(np.arange(3)),
                     d={"n": np.int32(-7)}, b=np.bool_(True)):
        pass
    slog.trace_stop()
    (got,) = [a for _, _, a, *_ in regions(trace_path)]
    assert got == {"idx": 5, "u": 2**64 - 1, "f": 1.5, "q": 0.25, "ids": [0, 1, 2],
                   "d": {"n": -7}, "b": "True"}
    assert type(got["idx"]) is int and type(got["f"]) is float


def test_starts_by_itself_under_slog_trace(tmp_path):
    code = ("import slog\n"
            "with slog.region('auto', k=7): pass\n"
            "print(slog.trace_file())\n")
    env = dict(os.environ, SLOG_TRACE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert os.path.dirname(out) == str(tmp_path) and out.endswith("-python.slog")
    assert [(n, a) for n, _, a, *_ in regions(out)] == [("auto", {"k": 7})]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_child_writes_its_own_file(trace_path, tmp_path):
    with slog.region("before"):
        pass
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            slog.trace_start(tmp_path / "child.slog")
            with slog.region("child"):
                pass
            slog.trace_stop()
        except BaseException:
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    with slog.region("after"):
        pass
    slog.trace_stop()
    assert [n for n, *_ in regions(trace_path)] == ["before", "after"]
    assert [n for n, *_ in regions(tmp_path / "child.slog")] == ["child"]


def test_decorated_function_pickles_like_the_function():
    """T5: pickle (and so multiprocessing) takes a decorated function by its
    module and qualified name, as it does an undecorated one."""
    import pickle
    import multiprocessing
    for f in (leaf, outer, Loader.load):
        assert pickle.loads(pickle.dumps(f)) is f
    bound = pickle.loads(pickle.dumps(Loader().load))
    assert bound(1) == 6
    assert (leaf.__name__, leaf.__qualname__, leaf.__module__) == ("leaf", "leaf", __name__)
    assert Loader.load.__qualname__ == "Loader.load" and leaf.__wrapped__(4) == 8
    assert fails.__doc__ is None and outer.__doc__ is None
    with multiprocessing.get_context("fork").Pool(2) as pool:
        assert pool.map(leaf, range(4)) == [0, 2, 4, 6]


def test_each_region_ends_itself(trace_path):
    """T7: a region's exit ends that region: asyncio tasks taking turns on one
    thread, regions ended out of order, a region around a generator's yield."""
    import asyncio
    import time

    async def task(name, secs):
        with slog.region("task-" + name):
            await asyncio.sleep(secs)

    async def main():
        await asyncio.gather(task("A", 0.010), task("B", 0.030))
    asyncio.run(main())
    a, b = slog.region("A"), slog.region("B")
    a.__enter__()
    b.__enter__()
    time.sleep(0.001)
    a.__exit__(None, None, None)
    time.sleep(0.004)
    b.__exit__(None, None, None)

    def gen():
        with slog.region("gen-body"):
            yield 1
            yield 2
    it = gen()
    with slog.region("caller-1"):
        next(it)
    with slog.region("caller-2"):
        next(it)
    next(it, None)
    with slog.region("after"):
        assert slog.annotate(k=1)
    slog.trace_stop()
    got = {n: (d, s, e) for n, d, _, s, e, _ in regions(trace_path)}
    ms = {n: (e - s) / 1e6 for n, (_, s, e) in got.items()}
    depth = {n: d for n, (d, _, _) in got.items()}
    assert depth["task-A"] == depth["task-B"] == 0
    assert 10 <= ms["task-A"] < 30 <= ms["task-B"]
    assert (depth["A"], depth["B"]) == (0, 1) and 1 <= ms["A"] and ms["B"] >= 5
    assert got["A"][2] + 4e6 <= got["B"][2]
    assert depth["caller-1"] == 0 and depth["gen-body"] == 1 and depth["after"] == 0
    assert got["caller-1"][1] <= got["gen-body"][1] <= got["caller-1"][2]
    assert got["gen-body"][2] >= got["caller-2"][2]


def test_regions_and_decorated_calls_nest_by_depth(trace_path):
    @slog.trace(name="inner call")
    def inner():
        assert slog.annotate(where="call")
        with slog.region("in call"):
            assert slog.annotate(where="region")

    with slog.region("outer"):
        inner()
    slog.trace_stop()
    got = [(n, d, a) for n, d, a, *_ in regions(trace_path)]
    assert got == [("outer", 0, {}), ("inner call", 1, {"where": "call"}),
                   ("in call", 2, {"where": "region"})]


def pool_work(i):
    with slog.region("work", i=i):
        time.sleep(0.15)  # a top region this long flushes the file at its end
    return i


def worker_files(trace_path):
    """The files of the parent's fork children: py-<pid>.slog beside py.slog."""
    return sorted(p for p in trace_path.parent.iterdir() if p.name.startswith("py-"))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_pool_workers_keep_their_regions(trace_path):
    """T6: a fork-started multiprocessing child ends with os._exit: its file is
    finished before that, by multiprocessing's own exit finalizers."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    pool = ctx.Pool(2)
    assert pool.map(pool_work, range(4)) == [0, 1, 2, 3]
    pool.close()
    pool.join()
    p = ctx.Process(target=pool_work, args=(9,))
    p.start()
    p.join()
    assert p.exitcode == 0
    slog.trace_stop()
    files = worker_files(trace_path)
    assert len(files) == 3
    got = sorted(a["i"] for f in files for n, _, a, *_ in regions(f))
    assert got == [0, 1, 2, 3, 9] and regions(trace_path) == []


def region_then_wait(ended):
    pool_work(7)
    ended.set()
    time.sleep(60)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("how", ["terminate", "kill"])
def test_killed_child_keeps_flushed_regions(trace_path, how):
    """T6: a child killed (SIGTERM as Pool.terminate sends, or SIGKILL) leaves
    its file incomplete but holding every region flushed before: the end of a
    top region 100 ms or more after the last flush flushes the file."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    ended = ctx.Event()
    p = ctx.Process(target=region_then_wait, args=(ended,))
    p.start()
    assert ended.wait(60)
    getattr(p, how)()
    p.join()
    assert p.exitcode < 0
    slog.trace_stop()
    (f,) = worker_files(trace_path)
    r = slog.open(f)
    assert not r.info["complete"]
    assert r.window(args=True).args.tolist() == [{"i": 7}]


def test_process_timeline_named_as_slog_trace_names_it(trace_path):
    """T15: the process timeline is named like slog-trace's native file's
    ("<program> pid N"), its threads "main TID"/"thread TID" as there."""
    with slog.region("r"):
        pass
    slog.trace_stop()
    names = set(slog.open(trace_path).timelines.name)
    with open("/proc/self/cmdline", "rb") as f:
        prog = os.path.basename(f.read().split(b"\0")[0].decode())
    assert names == {f"{prog} pid {os.getpid()}", f"main {os.getpid()}"}


POOL_SCRIPT = """
import multiprocessing, os, sys
{top}
def work(i):
    {inner}
    with slog.region("task", i=i):
        pass
    return i
if __name__ == "__main__":
    ctx = multiprocessing.get_context(sys.argv[1])
    with ctx.Pool(2) as pool:
        assert pool.map(work, range(4), chunksize=1) == [0, 1, 2, 3]
        pool.close()
        pool.join()
"""


@pytest.mark.parametrize("method", ["forkserver", "spawn", "fork"])
@pytest.mark.parametrize("where", ["main module", "task"])
def test_workers_importing_slog_after_their_fork_finish_their_files(tmp_path, method, where):
    """A forkserver worker imports the main module (and so slog) after its fork,
    a task may import slog itself: no fork hook ran there, the worker ends with
    os._exit, and its file was left empty and incomplete (0 of 4 regions)."""
    top, inner = ("import slog", "pass") if where == "main module" else ("", "import slog")
    script = tmp_path / "pool.py"
    script.write_text(POOL_SCRIPT.format(top=top, inner=inner))
    env = dict(os.environ, SLOG_TRACE_DIR=str(tmp_path))
    subprocess.run([sys.executable, str(script), method], env=env, check=True, timeout=120)
    files = sorted(tmp_path.glob("*-python.slog"))
    assert files, "no worker file"
    got = sorted(a["i"] for f in files for n, _, a, *_ in regions(f))
    assert got == [0, 1, 2, 3]


NAME_SCRIPT = """
import multiprocessing, sys
import slog
@slog.trace
def work(i):
    return i
if __name__ == "__main__":
    work(-1)
    ctx = multiprocessing.get_context(sys.argv[1])
    with ctx.Pool(1) as pool:
        assert pool.map(work, range(2)) == [0, 1]
        pool.close()
        pool.join()
"""


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_decorated_main_function_has_one_name_in_workers(tmp_path, method):
    """A function of the main script runs in a spawn or forkserver worker as
    __mp_main__.work: its calls there were regions of another name than the
    parent's __main__.work (stats by name split one function in two)."""
    script = tmp_path / "names.py"
    script.write_text(NAME_SCRIPT)
    env = dict(os.environ, SLOG_TRACE_DIR=str(tmp_path))
    subprocess.run([sys.executable, str(script), method], env=env, check=True, timeout=120)
    names = [n for f in tmp_path.glob("*-python.slog") for n, *_ in regions(f)]
    assert sorted(names) == ["__main__.work"] * 3


EXEC_SCRIPT = """
import os, sys, slog
with slog.region("first", pid=os.getpid()):
    pass
os.execv(sys.executable, [sys.executable, "-c",
         "import os, slog\\nwith slog.region('second', pid=os.getpid()):\\n    pass\\n"])
"""


def test_exec_keeps_each_programs_file(tmp_path):
    """A Python program that execs another (a launcher; one pid): the second
    traced into the first one's file name and replaced it, the first's
    regions lost (it was never finished).  The first is finished before the
    exec, the second takes <host>-<pid>.1-python.slog."""
    script = tmp_path / "launcher.py"
    script.write_text(EXEC_SCRIPT)
    env = dict(os.environ, SLOG_TRACE_DIR=str(tmp_path))
    subprocess.run([sys.executable, str(script)], env=env, check=True, timeout=120)
    files = sorted(tmp_path.glob("*-python.slog"))
    got = [(f.name.endswith(".1-python.slog"), [(n, a) for n, _, a, *_ in regions(f)])
           for f in files]
    assert len(files) == 2 and len({a["pid"] for _, rs in got for _, a in rs}) == 1
    assert [(dot, [n for n, _ in rs]) for dot, rs in got] == [(False, ["first"]),
                                                              (True, ["second"])]


def test_region_in_a_thread_given_the_callers_context_is_top_of_its_thread(trace_path):
    """asyncio.to_thread (and contextvars.copy_context().run in a thread) runs
    a function in a copy of the caller's context, which holds the caller's
    open region: the thread's region was drawn at depth 1 on its own
    timeline, under nothing.  Only regions of the same thread count."""
    import asyncio
    import contextvars

    def work(tag):
        with slog.region("inner", tag=tag):
            leaf(1)

    async def main():
        with slog.region("outer"):
            await asyncio.to_thread(work, "to_thread")
            ctx = contextvars.copy_context()
            t = threading.Thread(target=ctx.run, args=(work, "ctx.run"))
            t.start()
            t.join()
            work("same thread")

    asyncio.run(main())
    slog.trace_stop()
    got = sorted((a.get("tag", ""), n, d, tl.startswith("main")) for n, d, a, _, _, tl in
                 regions(trace_path))
    assert got == [("", "outer", 0, True),
                   ("", f"{__name__}.leaf", 1, False), ("", f"{__name__}.leaf", 1, False),
                   ("", f"{__name__}.leaf", 2, True),
                   ("ctx.run", "inner", 0, False), ("same thread", "inner", 1, True),
                   ("to_thread", "inner", 0, False)]
