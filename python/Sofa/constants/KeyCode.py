"""The code of each key of Sofa.constants.Key (ord of its character)."""
from . import Key as _Key

globals().update({_n: ord(_v) for _n, _v in vars(_Key).items()
                  if not _n.startswith("_") and isinstance(_v, str) and len(_v) == 1})
del _Key
