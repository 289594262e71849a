// The Python half of the sandbox: run once per interpreter by sandbox-core.ts. Defines the run
// and assert entry points, the per-run reset (builtins, sys state, new modules, cwd) and the
// Python-level hygiene (blocked modules, socket calls, recursion cap). Defence in depth only:
// the boundary in the browser is the worker's CSP (see docs/tools.md).

export const PRELUDE_PY = String.raw`
import asyncio, builtins, os, shutil, sys, traceback, types

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
    home = '/home/pyodide'
    root = '/tmp/sandbox'
    os.makedirs(root, exist_ok=True)

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

    def reset():
        """Undo what one run may have changed in the shared interpreter."""
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except BaseException:
                pass
        b = builtins.__dict__
        for k in [k for k in b if k not in builtins_snapshot]:
            del b[k]
        b.update(builtins_snapshot)
        for k, v in sys_snapshot.items():
            setattr(sys, k, v)
        sys.path[:] = path_snapshot
        sys.meta_path[:] = meta_snapshot
        for name, module in list(sys.modules.items()):
            if name not in modules_snapshot and is_user_module(module):
                del sys.modules[name]
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

    def check(test, ns):
        """Run one assert statement; None when it passes, 'Type: message' when it fails."""
        try:
            exec(compile(test, '<test>', 'exec', dont_inherit=True), ns)
            return None
        except BaseException as e:
            msg = str(e)
            return f'{type(e).__name__}: {msg}' if msg else type(e).__name__

    real_setrecursionlimit(default_limit)
    return types.SimpleNamespace(run=run, check=check, reset=reset, new_namespace=new_namespace, drop_workdir=drop_workdir)
`;
