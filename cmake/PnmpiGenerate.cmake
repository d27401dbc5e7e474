# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# pnmpi_generate_stubs(OUTDIR <dir> OUTPUTS_VAR <var>)
#
# The one place code generation is wired. Adds the build rules that
#   1. preprocess `#include <mpi.h>` with the MPI's own wrapper (${MPI_C_COMPILER} -E) into
#      <dir>/mpi_preprocessed.i, re-run when any header it read changes (depfile), and
#   2. run stub-gen/pnmpi_stubgen.py on it and on the MPI library, writing the generated
#      sources, mpi_api.json and pnmpi_api_report.txt into <dir>.
# Sets <var> in the caller's scope to the generated .c and .h files. The module headers
# pnmpi_newstack.h and pnmpi_xmpi.h are also copied to <dir>/include/pnmpi/newstack.h and
# xmpi.h, the names modules include them by (and the names they are installed under).
#
# Needs find_package(MPI COMPONENTS C) (MPI_C_COMPILER, MPI_C_LIBRARIES) and, if not yet
# found, finds Python 3. Every generator script and exceptions.txt is a dependency, so a
# change to the generator regenerates. The generator rewrites only outputs whose content
# changed; a stamp file records that it ran, so an unchanged result rebuilds nothing.
include_guard(GLOBAL)

set(PNMPI_GENERATED_SOURCES
  pnmpi_routine_ids.h
  pnmpi_routine_types.h
  pnmpi_routine_names.c
  pnmpi_tables.c
  pnmpi_stub.c
  pnmpi_xmpi.c
  pnmpi_newstack.h
  pnmpi_xmpi.h
  passthrough.c
  place_wrappers.c
  profile_wrappers.c)

function(pnmpi_generate_stubs)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "OUTDIR;OUTPUTS_VAR" "")
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_OUTDIR OR NOT arg_OUTPUTS_VAR)
    message(FATAL_ERROR "usage: pnmpi_generate_stubs(OUTDIR <dir> OUTPUTS_VAR <var>)")
  endif()
  if(NOT MPI_C_COMPILER OR NOT MPI_C_LIBRARIES)
    message(FATAL_ERROR "pnmpi_generate_stubs: MPI_C_COMPILER and MPI_C_LIBRARIES are not "
                        "set; call find_package(MPI COMPONENTS C) first")
  endif()
  if(NOT Python3_EXECUTABLE)
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
  endif()

  set(gen_dir "${PROJECT_SOURCE_DIR}/stub-gen")
  set(outdir "${arg_OUTDIR}")
  file(GLOB gen_scripts CONFIGURE_DEPENDS "${gen_dir}/*.py" "${gen_dir}/templates/*"
       "${gen_dir}/profile.txt")
  set(exceptions "${gen_dir}/exceptions.txt")
  set(place_exceptions "${gen_dir}/place_exceptions.txt")

  # MPI_C_LIBRARIES may list more than the MPI library (e.g. libpthread); the generator
  # uses those that export PMPI_ functions. Only files can be dependencies.
  set(library_args "")
  set(library_files "")
  foreach(lib IN LISTS MPI_C_LIBRARIES)
    if(IS_ABSOLUTE "${lib}" AND EXISTS "${lib}")
      list(APPEND library_args --library "${lib}")
      list(APPEND library_files "${lib}")
    endif()
  endforeach()
  if(NOT library_files)
    message(FATAL_ERROR "pnmpi_generate_stubs: no library file in MPI_C_LIBRARIES "
                        "(${MPI_C_LIBRARIES})")
  endif()

  file(MAKE_DIRECTORY "${outdir}")
  set(probe "${outdir}/pnmpi_mpi_h.c")
  file(CONFIGURE OUTPUT "${probe}" CONTENT "#include <mpi.h>\n")
  set(preprocessed "${outdir}/mpi_preprocessed.i")
  add_custom_command(
    OUTPUT "${preprocessed}"
    COMMAND "${MPI_C_COMPILER}" -E -MD -MF "${preprocessed}.d" -MT "${preprocessed}"
            -o "${preprocessed}" "${probe}"
    DEPENDS "${probe}"
    DEPFILE "${preprocessed}.d"
    COMMENT "Preprocessing mpi.h with ${MPI_C_COMPILER}"
    VERBATIM)

  set(outputs "")
  foreach(name IN LISTS PNMPI_GENERATED_SOURCES)
    list(APPEND outputs "${outdir}/${name}")
  endforeach()
  set(stamp "${outdir}/pnmpi_stubgen.stamp")
  add_custom_command(
    OUTPUT "${stamp}" ${outputs} "${outdir}/mpi_api.json" "${outdir}/pnmpi_api_report.txt"
    COMMAND "${Python3_EXECUTABLE}" -B "${gen_dir}/pnmpi_stubgen.py"
            --preprocessed "${preprocessed}" ${library_args}
            --exceptions "${exceptions}" --place-exceptions "${place_exceptions}"
            --outdir "${outdir}"
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS "${preprocessed}" ${gen_scripts} "${exceptions}" "${place_exceptions}"
            ${library_files}
    COMMENT "Generating the pnmpi stubs from mpi.h"
    VERBATIM)

  foreach(header IN ITEMS newstack xmpi)
    set(copy "${outdir}/include/pnmpi/${header}.h")
    add_custom_command(
      OUTPUT "${copy}"
      COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${outdir}/pnmpi_${header}.h" "${copy}"
      DEPENDS "${outdir}/pnmpi_${header}.h"
      VERBATIM)
    list(APPEND outputs "${copy}")
  endforeach()

  set(${arg_OUTPUTS_VAR} "${outputs}" PARENT_SCOPE)
endfunction()
