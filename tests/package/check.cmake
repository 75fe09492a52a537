# Install the project into a scratch prefix, then use it as others do:
#   1. a CMake project finds it with find_package and links ttft_tpot::ttft_tpot;
#   2. a plain compiler command takes its flags from pkg-config (as Make and Meson users do);
#   3. the prefix holds LICENSE, the .pc file, the report tool and its man page, and not the demo driver;
#   4. a parent project builds it with add_subdirectory and installs and exports a library of its
#      own that links ttft_tpot::ttft_tpot (CMake's export-set rule);
#   5. a driver (examples/minimal.c) builds against the installed ttft_tpot.h alone;
#   6. the Python package's extension builds against the installed headers alone (-D PYTHON_EXE=...).
# -D BUILD_DIR=<the project's build tree> -D SOURCE_DIR=<tests/package> -D WORK_DIR=<scratch>
# -D PROJECT_DIR=<the project's source tree> -D C_COMPILER=<cc>
file(REMOVE_RECURSE "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()
set(prefix "${WORK_DIR}/prefix")
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")

run(${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" "-DCMAKE_PREFIX_PATH=${prefix}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
find_program(consumer consumer PATHS "${WORK_DIR}/build" NO_DEFAULT_PATH)
run("${consumer}")
message(STATUS "find_package(ttft_tpot CONFIG REQUIRED) found the installed package and linked ttft_tpot::ttft_tpot")

find_program(pkg_config pkg-config)
if(pkg_config)
  set(ENV{PKG_CONFIG_PATH} "${prefix}/share/pkgconfig")
  run(${pkg_config} --cflags ttft_tpot)
  string(STRIP "${run_out}" cflags)
  string(REGEX REPLACE "^-I" "" dir "${cflags}")
  get_filename_component(dir "${dir}" REALPATH) # the .pc finds its prefix from where it lies
  get_filename_component(want "${prefix}/include" REALPATH)
  if(NOT dir STREQUAL want)
    message(FATAL_ERROR "pkg-config --cflags ttft_tpot gave '${cflags}', not the prefix's include directory")
  endif()
  run(${C_COMPILER} ${cflags} "${SOURCE_DIR}/consumer.c" -o "${WORK_DIR}/pc_consumer")
  run("${WORK_DIR}/pc_consumer")
  message(STATUS "pkg-config --cflags ttft_tpot: ${cflags}; a consumer built with it runs")
else()
  message(STATUS "pkg-config not found: the pkg-config consumer is skipped (Debian: apt-get install pkgconf)")
endif()

# a driver needs the driver's header alone: minimal.c (the README's Integrate snippet as a program)
# builds with nothing but the installed ttft_tpot.h in its include path
file(MAKE_DIRECTORY "${WORK_DIR}/driver_only")
file(COPY "${prefix}/include/ttft_tpot.h" DESTINATION "${WORK_DIR}/driver_only")
run(${C_COMPILER} -std=c99 -O2 -I "${WORK_DIR}/driver_only" "${PROJECT_DIR}/examples/minimal.c" -o "${WORK_DIR}/minimal" -lm)
run("${WORK_DIR}/minimal")
message(STATUS "examples/minimal.c built against the installed ttft_tpot.h alone")

# the Python package's extension compiles against the installed headers alone, and runs
if(PYTHON_EXE)
  execute_process(COMMAND "${PYTHON_EXE}" -c
                  "import sysconfig as s; print(s.get_paths()['include']); print(s.get_config_var('EXT_SUFFIX'))"
                  OUTPUT_VARIABLE py OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  string(REPLACE "\n" ";" py "${py}")
  list(GET py 0 py_include)
  list(GET py 1 py_suffix)
  file(COPY "${PROJECT_DIR}/examples/python/src/ttft_tpot" DESTINATION "${WORK_DIR}/python")
  run(${C_COMPILER} -O2 -shared -fPIC -I "${prefix}/include" -I "${py_include}"
      "${PROJECT_DIR}/examples/python/csrc/_core.c" -o "${WORK_DIR}/python/ttft_tpot/_core${py_suffix}")
  run(${CMAKE_COMMAND} -E env "PYTHONPATH=${WORK_DIR}/python" "${PYTHON_EXE}" -c
      "import ttft_tpot; tp = ttft_tpot.Collector(); tp.record('d', 'decode', 5); assert 'ttft_tpot report' in tp.report()")
  message(STATUS "the Python extension built against the installed headers alone, and ran")
endif()

foreach(f share/doc/ttft_tpot/LICENSE include/ttft_tpot.h include/ttft_tpot_serve.h include/ttft_tpot_tools.h
          share/pkgconfig/ttft_tpot.pc bin/ttft_tpot_report${CMAKE_EXECUTABLE_SUFFIX}
          share/man/man1/ttft_tpot_report.1)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
if(EXISTS "${prefix}/bin/generate")
  message(FATAL_ERROR "the demo driver generate was installed")
endif()

run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/export" -B "${WORK_DIR}/export" "-DTTFT_TPOT_SOURCE=${PROJECT_DIR}"
    -DTTFT_TPOT_BUILD_TESTS=OFF)
run(${CMAKE_COMMAND} --build "${WORK_DIR}/export")
run(${CMAKE_COMMAND} --install "${WORK_DIR}/export" --prefix "${WORK_DIR}/export-prefix")
message(STATUS "a parent project installed and exported a library linking ttft_tpot::ttft_tpot")
