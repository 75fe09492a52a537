# The code a C++ user pastes, built warning-free as C++17 with g++'s strictest casts:
# examples/minimal.c, and the README's serving snippet in a main() that declares what it uses (tp,
# slo). cmake -DCXX=... -DSRC=<source dir> -DOUT=<dir> -P cxx_strict.cmake
file(READ "${SRC}/README.md" readme)
string(FIND "${readme}" "#include \"ttft_tpot_serve.h\"" at)
if(at LESS 0)
  message(FATAL_ERROR "cxx_strict: the README's serving snippet (#include \"ttft_tpot_serve.h\") not found")
endif()
string(SUBSTRING "${readme}" ${at} -1 rest)
string(FIND "${rest}" "\n```" end)
string(SUBSTRING "${rest}" 0 ${end} snippet)
string(FIND "${snippet}" "\n" eol)
string(SUBSTRING "${snippet}" ${eol} -1 body)
file(WRITE "${OUT}/readme_serving.cpp"
     "#define TTFT_TPOT_IMPLEMENTATION\n#include \"ttft_tpot_serve.h\"\n\nint main()\n{\n"
     "    ttft_tpot tp;\n    ttft_tpot_slo slo = TTFT_TPOT_ZERO;\n${body}\n    ttft_tpot_free(&tp);\n    return 0;\n}\n")
set(flags -std=c++17 -Wall -Wextra -Wpedantic -Wuseless-cast -Wmissing-field-initializers -Werror -I${SRC}/include)
foreach(src "-xc++;${SRC}/examples/minimal.c" "${OUT}/readme_serving.cpp")
  execute_process(COMMAND ${CXX} ${flags} -c ${src} -o ${OUT}/cxx_strict.o RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cxx_strict: ${src} does not build as C++17 with ${flags}")
  endif()
  message(STATUS "cxx_strict: ${src}: built as C++17, -Wuseless-cast -Werror")
endforeach()
