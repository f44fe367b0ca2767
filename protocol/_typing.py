"""The names from ``typing`` that the protocol package uses, without importing it.

``typing`` (with ``re``, which it imports) costs about 10 ms of CPU time, more than a
third of what a Python bot on ``protocol.bot`` spends importing before its first
frame, and a league may start a bot process for every game. Type checkers see the
real names. At run time:

- a ``TypedDict`` class is a class whose call returns a plain dict, as typing's does;
  ``isinstance`` against it raises ``TypeError``, as typing's does;
- a ``NamedTuple`` class is a ``collections.namedtuple`` of its annotated fields
  (fields only: no defaults, methods or other attributes);
- ``cast`` returns its value; ``Protocol`` is a plain base class; ``Any`` is ``object``;
- ``ClassVar``, ``Final``, ``Literal`` and ``NoReturn`` appear only in annotations,
  which this package never evaluates (``from __future__ import annotations``), so
  at run time they are ``None``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any as Any
    from typing import ClassVar as ClassVar
    from typing import Final as Final
    from typing import Literal as Literal
    from typing import NamedTuple as NamedTuple
    from typing import NoReturn as NoReturn
    from typing import Protocol as Protocol
    from typing import TypedDict as TypedDict
    from typing import cast as cast
else:
    import collections

    Any = object
    ClassVar = Final = Literal = NoReturn = None

    def cast(typ, value, /):
        return value

    class Protocol:
        __slots__ = ()

    class _TypedDictMeta(type):
        def __call__(cls, /, *args, **kwargs):
            return dict(*args, **kwargs)

        def __instancecheck__(cls, instance):
            raise TypeError("TypedDict does not support instance and class checks")

    TypedDict = type.__new__(_TypedDictMeta, "TypedDict", (), {"__module__": __name__})

    class _NamedTupleMeta(type):
        def __new__(mcls, name, bases, namespace):
            if "__annotations__" in namespace:
                fields = tuple(namespace["__annotations__"])
            else:  # Python 3.14 (PEP 649): annotations come from a function
                fields = tuple(namespace["__annotate__"](1)) if "__annotate__" in namespace else ()
            extra = {key for key in namespace if not (key[:2] == key[-2:] == "__")}
            if extra:
                raise TypeError(f"{name}: the run-time NamedTuple holds fields only: {extra}")
            made = collections.namedtuple(name, fields, module=namespace["__module__"])
            made.__qualname__ = namespace["__qualname__"]
            made.__doc__ = namespace.get("__doc__", made.__doc__)
            return made

    NamedTuple = type.__new__(_NamedTupleMeta, "NamedTuple", (), {"__module__": __name__})
