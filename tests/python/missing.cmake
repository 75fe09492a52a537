# The Python package's tests could not run: fail, saying why (WHY) and how to fix it.
message(FATAL_ERROR "the Python package's tests cannot run: ${WHY}")
