# Python support (docs/python.md): finds a CPython interpreter with its
# headers and NumPy. Sets SETTEE_PYTHON (ON when found) and, then,
# SETTEE_PYTHON_EXECUTABLE, SETTEE_PYTHON_LIBRARY (the soname of libpython,
# which the SofaPython3 plugin opens at run time), SETTEE_PYTHON_SUBDIR (where
# the packages go, relative to the build tree and to the install prefix).
# Skipped cleanly when anything is missing (Debian: python3-dev python3-numpy).
include_guard(GLOBAL)

option(SETTEE_WITH_PYTHON "Build the Python module and the SofaPython3 plugin when Python 3 and NumPy are found" ON)
set(SETTEE_PYTHON OFF)
if(NOT SETTEE_WITH_PYTHON)
  return()
endif()

# The first python3 on PATH may lack NumPy (a pyenv build): prefer Debian's
# interpreter then, unless the user chose one with -DPython3_EXECUTABLE.
if(NOT Python3_EXECUTABLE)
  find_program(_settee_py3 python3)
  set(_settee_np 1)
  if(_settee_py3)
    execute_process(COMMAND "${_settee_py3}" -c "import numpy"
                    RESULT_VARIABLE _settee_np OUTPUT_QUIET ERROR_QUIET)
  endif()
  if(NOT _settee_np EQUAL 0 AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python 3 interpreter (with NumPy)")
  endif()
  unset(_settee_py3 CACHE)
endif()
find_package(Python3 3.8 COMPONENTS Interpreter Development.Module NumPy)
if(NOT Python3_FOUND OR NOT Python3_NumPy_FOUND OR NOT Python3_Development.Module_FOUND)
  message(STATUS "Python 3 with headers and NumPy not found: the Python module and the "
                 "SofaPython3 plugin are not built (Debian: python3-dev python3-numpy)")
  return()
endif()
execute_process(COMMAND "${Python3_EXECUTABLE}" -c
  "import sysconfig as s; print(s.get_config_var('INSTSONAME') or s.get_config_var('LDLIBRARY'))"
  OUTPUT_VARIABLE SETTEE_PYTHON_LIBRARY OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0 OR NOT SETTEE_PYTHON_LIBRARY MATCHES "^libpython.*\\.so")
  message(STATUS "Python 3 has no shared libpython: the SofaPython3 plugin cannot embed it; "
                 "Python support is not built")
  return()
endif()
set(SETTEE_PYTHON ON)
set(SETTEE_PYTHON_EXECUTABLE "${Python3_EXECUTABLE}")
set(SETTEE_PYTHON_SUBDIR "${CMAKE_INSTALL_LIBDIR}/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/site-packages"
    CACHE STRING "Where the Python packages (settee, Sofa, SofaRuntime) are installed, relative to the prefix")
set(SETTEE_PYTHON_BUILD_DIR "${CMAKE_BINARY_DIR}/python")
execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import pytest"
                RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
set(SETTEE_PYTEST OFF)
if(_rc EQUAL 0)
  set(SETTEE_PYTEST ON)
endif()
message(STATUS "Python support: ${Python3_EXECUTABLE} ${Python3_VERSION}, NumPy ${Python3_NumPy_VERSION}, ${SETTEE_PYTHON_LIBRARY}")
