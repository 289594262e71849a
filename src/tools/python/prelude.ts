// The Python half of the sandbox: run once per interpreter by sandbox-core.ts. Defines the run,
// value and assert entry points, the per-run reset (builtins, sys state, new modules, cwd, event
// loop timers), the fingerprint of everything outside a run's namespace (a change recycles the
// worker) and Python-level hygiene (blocked modules, sockets, processes, recursion cap). Defence
// in depth only: the boundary is the browser worker's CSP or the Node process (docs/sandbox.md).

export const PRELUDE_PY = String.raw`
import asyncio, builtins, gc, os, shutil, sys, traceback, types

def _make_sandbox(max_recursion):
    BLOCKED = {'js', 'pyodide_js', 'pyodide.http', 'pyodide.code', 'micropip', 'pyodide_http', 'requests', 'urllib3'}

    class _Blocker:
        """Refuses imports of modules that reach JavaScript or the network."""
        def find_spec(self, name, path=None, target=None):
            if name in BLOCKED or name.split('.')[0] in ('js', 'pyodide_js', 'micropip'):
                raise ImportError(f"module '{name}' is disabled in the sandbox")
            return None
        def find_module(self, name, path=None):
            return None

    for name in list(sys.modules):
        if name in BLOCKED or name.startswith('js.'):
            del sys.modules[name]
    import pyodide
    for attr in ('http', 'code'):
        if hasattr(pyodide, attr):
            delattr(pyodide, attr)
    sys.meta_path.insert(0, _Blocker())

    import socket
    def _denied(*args, **kwargs):
        raise PermissionError('network access is disabled in the sandbox')
    for attr in ('connect', 'connect_ex', 'sendto', 'bind', 'listen'):
        setattr(socket.socket, attr, _denied)
    for attr in ('create_connection', 'getaddrinfo', 'gethostbyname', 'create_server'):
        setattr(socket, attr, _denied)
    def _no_process(*args, **kwargs):
        raise PermissionError('starting processes is disabled in the sandbox')
    for attr in ('system', 'popen', 'fork', 'forkpty', 'posix_spawn', 'posix_spawnp', 'execv', 'execve', 'spawnv', 'spawnve'):
        if hasattr(os, attr):
            setattr(os, attr, _no_process)

    # Event-loop timers of a run die with it: every handle call_later makes is cancelled by reset().
    import pyodide.webloop
    pending_timers = []
    loop_call_later = pyodide.webloop.WebLoop.call_later
    def call_later(self, delay, callback, *args, context=None):
        handle = loop_call_later(self, delay, callback, *args, context=context)
        pending_timers.append(handle)
        return handle
    pyodide.webloop.WebLoop.call_later = call_later

    # Loaded now so that they are part of the fingerprint (a run that patches them is caught).
    import json, math, re, collections, itertools, functools, heapq, bisect, string, random, operator, copy, statistics, fractions, decimal, datetime, typing, dataclasses, urllib.request

    real_setrecursionlimit = sys.setrecursionlimit
    def setrecursionlimit(n):
        """Clamped: deeper recursion overflows the JS stack and kills the interpreter."""
        real_setrecursionlimit(min(int(n), max_recursion))
    sys.setrecursionlimit = setrecursionlimit
    default_limit = min(sys.getrecursionlimit(), max_recursion)

    builtins_snapshot = dict(builtins.__dict__)
    sys_snapshot = {k: getattr(sys, k) for k in ('stdin', 'stdout', 'stderr', 'displayhook', 'excepthook', 'setrecursionlimit')}
    path_snapshot = list(sys.path)
    modules_snapshot = set(sys.modules)
    meta_snapshot = list(sys.meta_path)
    environ_snapshot = dict(os.environ)
    home = '/home/pyodide'
    root = '/tmp/sandbox'
    os.makedirs(root, exist_ok=True)
    os.chdir(home)

    def is_user_module(module):
        spec = getattr(module, '__spec__', None)
        origin = getattr(spec, 'origin', None)
        if origin in ('built-in', 'frozen'):
            return False
        return not (isinstance(origin, str) and origin.startswith('/lib/'))

    def workdir(key):
        d = os.path.join(root, key)
        os.makedirs(d, exist_ok=True)
        return d

    def new_namespace(key):
        ns = {'__name__': '__main__', '__builtins__': builtins}
        workdir(key)
        return ns

    def drop_workdir(key):
        shutil.rmtree(os.path.join(root, key), ignore_errors=True)

    # ---- fingerprint: everything a run could change outside its namespace and working directory
    SKIP_DIRS = ('/lib', '/proc', '/dev', '/sys', root)

    def files():
        seen = []
        for top in os.listdir('/'):
            path = '/' + top
            if path in SKIP_DIRS or not os.path.isdir(path):
                seen.append((path, 0, 0))
                continue
            for d, dirs, names in os.walk(path):
                dirs[:] = [x for x in dirs if os.path.join(d, x) not in SKIP_DIRS]
                for n in names:
                    st = os.stat(os.path.join(d, n))
                    seen.append((os.path.join(d, n), st.st_size, st.st_mtime_ns))
                seen.append((d, -1, 0))
        return sorted(seen)

    def namespace_ids(ns):
        return tuple(map(id, ns.values()))  # C loops: a replaced, added or deleted attribute changes it

    def watched_namespaces():
        """Every loaded module's namespace and those of the classes it defines."""
        out = []
        for name in sorted(modules_snapshot):
            module = sys.modules.get(name)
            d = getattr(module, '__dict__', None)
            if name == '__main__' or not isinstance(d, dict):
                continue
            out.append((f'module {name}', d))
            for v in list(d.values()):
                if isinstance(v, type) and getattr(v, '__module__', None) == name:
                    out.append((f'class {name}.{v.__qualname__}', v.__dict__))
        out.append(('the import blocker', _Blocker.__dict__))
        return out

    sandbox_functions = []
    state = {}
    import operator
    code_of = operator.attrgetter('__code__')
    defaults_of = operator.attrgetter('__defaults__')

    def functions():
        """Pure-Python functions of the watched namespaces, and ours."""
        out = {id(f): f for _, ns in state['watched'] for f in list(ns.values()) if isinstance(f, types.FunctionType)}
        out.update({id(f): f for f in sandbox_functions})
        return list(out.values())

    def cell_id(cell):
        try:
            return id(cell.cell_contents)
        except ValueError:
            return 0

    def fingerprint():
        return {
            'sys.modules': [id(sys.modules.get(name)) for name in state['module_names']],
            'namespaces': [namespace_ids(ns) for _, ns in state['watched']],
            # Functions patched in place (f.__code__ = ...) keep their identity: watch their code and defaults.
            'function code': (list(map(id, map(code_of, state['functions']))), list(map(id, map(defaults_of, state['functions'])))),
            'import hooks': (tuple(map(id, sys.meta_path)), tuple(map(id, sys.path_hooks)), namespace_ids(sys.meta_path[0].__dict__) if sys.meta_path else None),
            'sandbox functions': tuple(cell_id(c) for f in sandbox_functions for c in (f.__closure__ or ())),
            'files': files(),
        }

    def diff(before, after):
        """Names of what changed between two fingerprints (empty: clean)."""
        out = []
        if before['namespaces'] != after['namespaces']:
            out += [label for (label, _), a, b in zip(state['watched'], before['namespaces'], after['namespaces']) if a != b][:5]
        if before['function code'] != after['function code']:
            out += [f'function {f.__module__}.{f.__qualname__}' for f, a, b in zip(state['functions'], before['function code'][0], after['function code'][0]) if a != b][:5] or ['function defaults']
        for key in ('sys.modules', 'import hooks', 'sandbox functions'):
            if before[key] != after[key]:
                out.append(key)
        if before['files'] != after['files']:
            changed = sorted({p for p, _, _ in set(before['files']) ^ set(after['files'])})
            out.append('files ' + ', '.join(changed)[:200])
        return out

    bridge = ('js', 'pyodide_js', 'pyodide.code', 'pyodide.http')

    def outside_changes():
        """What the last run changed outside its namespace; reset() has already undone the rest."""
        out = [f'imported {m}' for m in bridge if m in sys.modules]
        if dict(os.environ) != environ_snapshot:
            out.append('os.environ')
        return out + diff(state['baseline'], fingerprint())

    def reset():
        """Undo what one run may have changed in the shared interpreter."""
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except BaseException:
                pass
        for handle in pending_timers:
            handle.cancel()
        pending_timers.clear()
        b = builtins.__dict__
        for k in [k for k in b if k not in builtins_snapshot]:
            del b[k]
        b.update(builtins_snapshot)
        for k, v in sys_snapshot.items():
            setattr(sys, k, v)
        sys.path[:] = path_snapshot
        sys.meta_path[:] = meta_snapshot
        # Modules the run imported (its own or the stdlib's) are forgotten: the next import is fresh.
        for name in list(sys.modules):
            if name not in modules_snapshot and name not in bridge:
                module = sys.modules.pop(name)
                parent, _, child = name.rpartition('.')
                if parent in modules_snapshot and getattr(sys.modules.get(parent), child, None) is module:
                    delattr(sys.modules[parent], child)  # importing a submodule sets it on its package
        real_setrecursionlimit(default_limit)
        try:
            for task in asyncio.all_tasks():
                task.cancel()
        except RuntimeError:
            pass
        os.chdir(home)

    def describe(e):
        msg = str(e)
        return [type(e).__name__, msg]

    def run(code, ns, key, done):
        """Run user code; done() tells JS the user code is over (stop re-interrupting floods)."""
        os.chdir(workdir(key))
        try:
            compiled = compile(code, '<code>', 'exec', dont_inherit=True)
            exec(compiled, ns)
            done()
            return None
        except SystemExit as e:
            done()
            if e.code is None or e.code == 0:
                return None
            sys.stderr.write(f'SystemExit: {e.code}\n')
            return describe(e)
        except BaseException as e:
            done()
            tb = e.__traceback__.tb_next if e.__traceback__ is not None else None
            sys.stderr.write(''.join(traceback.format_exception(type(e), e, tb)))
            return describe(e)

    def failure(e):
        msg = str(e)
        return f'{type(e).__name__}: {msg}' if msg else type(e).__name__

    def check(test, ns):
        """Run one assert statement; None when it passes, 'Type: message' when it fails."""
        try:
            exec(compile(test, '<test>', 'exec', dont_inherit=True), ns)
            return None
        except BaseException as e:
            return failure(e)

    def value(expr, ns):
        """Evaluate one expression of a test; ['ok', encoded] or ['error', 'Type: message']."""
        try:
            return ['ok', encode(eval(compile(expr, '<test>', 'eval', dont_inherit=True), ns))]
        except BaseException as e:
            return ['error', failure(e)]

    def plan(test):
        """Split 'assert A == B' (dataset code, no solution loaded): the side that evaluates here is
        the expected value, the other is what the solution must produce. Anything else runs whole."""
        import ast
        try:
            tree = ast.parse(test)
        except SyntaxError:
            return ['assert']
        stmt = tree.body[0] if len(tree.body) == 1 else None
        if not isinstance(stmt, ast.Assert) or not isinstance(stmt.test, ast.Compare) or len(stmt.test.ops) != 1 or not isinstance(stmt.test.ops[0], ast.Eq):
            return ['assert']
        left, right = stmt.test.left, stmt.test.comparators[0]
        for expected, probe in ((right, left), (left, right)):
            try:
                v = encode(eval(compile(ast.Expression(expected), '<test>', 'eval'), {'__builtins__': builtins}))
            except BaseException:
                continue
            if not opaque(v):
                return ['compare', ast.get_source_segment(test, probe), v]
        return ['assert']

    def opaque(v):
        if v[0] == 'opaque':
            return True
        if v[0] in ('list', 'tuple', 'set'):
            return any(opaque(x) for x in v[1])
        if v[0] == 'dict':
            return any(opaque(k) or opaque(x) for k, x in v[1])
        return False

    MAX_NODES = 100_000
    DICTS = (dict, collections.OrderedDict, collections.defaultdict, collections.Counter)

    def encode(v, budget=None):
        """A tagged, JSON-able copy of a plain value (built through the base types' own methods, so
        overridden __eq__/__iter__ cannot fake it); anything else is opaque and equals nothing."""
        budget = budget if budget is not None else [MAX_NODES]
        budget[0] -= 1
        if budget[0] < 0:
            return ['opaque', 'too large']
        t = type(v)
        if v is None:
            return ['none']
        if t is bool:
            return ['bool', v]
        if isinstance(v, int):
            return ['int', int.__format__(v, 'x')]
        if isinstance(v, float):
            return ['float', float.__repr__(v)]
        if isinstance(v, complex):
            return ['complex', float.__repr__(v.real), float.__repr__(v.imag)]
        if isinstance(v, str):
            return ['str', str.__str__(v)]
        if isinstance(v, (bytes, bytearray)):
            return ['bytes', bytes(v).hex()]
        if isinstance(v, (list, tuple)):
            base = list if isinstance(v, list) else tuple
            return ['list' if base is list else 'tuple', [encode(x, budget) for x in base.__iter__(v)]]
        if isinstance(v, (set, frozenset)):
            return ['set', [encode(x, budget) for x in (set.__iter__(v) if isinstance(v, set) else frozenset.__iter__(v))]]
        if t in DICTS:
            return ['dict', [[encode(k, budget), encode(x, budget)] for k, x in dict.items(v)]]
        return ['opaque', t.__name__]

    real_setrecursionlimit(default_limit)
    sandbox_functions.extend([run, check, value, plan, reset, encode, opaque, outside_changes, fingerprint, diff, files, new_namespace, drop_workdir])
    plan('assert len("") == 0')  # loads what planning needs, so the baseline includes it
    state['module_names'] = sorted(modules_snapshot)
    state['watched'] = watched_namespaces()
    state['functions'] = functions()
    state['baseline'] = fingerprint()
    return types.SimpleNamespace(run=run, check=check, value=value, plan=plan, reset=reset, new_namespace=new_namespace,
                                 drop_workdir=drop_workdir, outside_changes=outside_changes)
`;
