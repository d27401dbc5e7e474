# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors

# pnmpi_add_module(<name> [NO_PMPI_IMPORTS] [DEFAULT_VISIBILITY] <source>...)
#
# Builds <name>.so as an ordinary PMPI tool (a MODULE library linked to MPI::MPI_C, hidden
# visibility, C11) and, right after each link, turns it into a pnmpi module with
# `pnmpi-patch --in-place`, which renames its imported PMPI_* symbols to XMPI_*.
#
# NO_PMPI_IMPORTS says that the module makes no PMPI_ call by design (it only offers hooks
# or services): there is nothing to rename, so instead of patching it, the build checks
# that it indeed imports no PMPI_ symbol, and fails, listing them, if it does. Without it,
# such a module builds too, but pnmpi-patch warns "nothing to rename", because for a tool
# that should call the next layer that warning is a real problem. The module
# lands in ${PNMPI_MODULE_BUILD_DIR} if set, else ${PROJECT_BINARY_DIR}/modules, so the build
# tree is a module repository (PNMPI_LIB_PATH).
#
# DEFAULT_VISIBILITY builds with default visibility, as the original PnMPI built its modules:
# their sources do not mark what they export (PNMPI_EXPORT), so hidden visibility would hide
# their wrappers and hooks.
#
# pnmpi_add_pmpi_module(<name> <source>...) and pnmpi_add_xmpi_module(<name> <source>...)
# are the original PnMPI's functions, so that its modules' CMakeLists.txt build unchanged: a
# PMPI module is a pnmpi_add_module(DEFAULT_VISIBILITY) module; an XMPI module calls XMPI_X
# itself, and the PMPI_ routines it may call as well are renamed when there are any.
#
# The patcher is the in-tree `pnmpi-patch` target when it exists (add_subdirectory(patcher)
# must come before the first call), else the imported target `pnmpi::pnmpi-patch` of an
# installed pnmpi package.
#
# With PNMPI_MODULE_ADD_NEEDED=ON the module also gets a DT_NEEDED entry on libpnmpi.so (via
# patchelf). That is not required: the core loads modules with libpnmpi already in the global
# scope.

# Script mode, run by pnmpi_add_xmpi_module's build step: patches the module when it has
# PMPI_ imports, and stays silent when it has none (an XMPI module usually has none).
#   cmake -DPNMPI_PATCHER=... -DPNMPI_PATCH_IF_NEEDED=<module file> -P PnmpiModule.cmake
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED PNMPI_PATCH_IF_NEEDED)
  execute_process(COMMAND "${PNMPI_PATCHER}" --list "${PNMPI_PATCH_IF_NEEDED}"
                  OUTPUT_VARIABLE imports ERROR_VARIABLE errors RESULT_VARIABLE status)
  # XMPI_ imports and no PMPI_ one: the module is what it should be.
  if(errors MATCHES "already patched: it imports [0-9]+ XMPI_ symbol\\(s\\) and no PMPI_")
    return()
  endif()
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${errors}")
  endif()
  if(imports)
    execute_process(COMMAND "${PNMPI_PATCHER}" --in-place "${PNMPI_PATCH_IF_NEEDED}"
                    RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "pnmpi-patch failed on ${PNMPI_PATCH_IF_NEEDED}")
    endif()
  endif()
  return()
endif()

# Script mode, run by the NO_PMPI_IMPORTS build step:
#   cmake -DPNMPI_PATCHER=... -DPNMPI_CHECK_NO_IMPORTS=<module file> -P PnmpiModule.cmake
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED PNMPI_CHECK_NO_IMPORTS)
  execute_process(COMMAND "${PNMPI_PATCHER}" --list "${PNMPI_CHECK_NO_IMPORTS}"
                  OUTPUT_VARIABLE imports ERROR_VARIABLE errors RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${errors}")
  endif()
  if(imports)
    # Indented lines are printed as they are, one import per line.
    string(STRIP "${imports}" imports)
    string(REPLACE "\n" "\n  " imports "  ${imports}")
    message(FATAL_ERROR "pnmpi_add_module(... NO_PMPI_IMPORTS ...): ${PNMPI_CHECK_NO_IMPORTS} "
                        "calls PMPI_ routines, which must be renamed to reach the next layer:\n"
                        "${imports}\nremove NO_PMPI_IMPORTS from its pnmpi_add_module() call")
  endif()
  # The one line expected here is the "nothing to rename" warning this mode exists to
  # replace; anything else is shown.
  string(REGEX REPLACE "pnmpi-patch: warning: [^\n]*: nothing to rename: [^\n]*\n?" ""
         errors "${errors}")
  if(errors)
    message("${errors}")
  endif()
  return()
endif()

include_guard(GLOBAL)

option(PNMPI_MODULE_ADD_NEEDED
  "Record a DT_NEEDED on libpnmpi.so in each module (needs patchelf; not required)" OFF)

function(pnmpi_add_module name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_PMPI_IMPORTS;DEFAULT_VISIBILITY;PATCH_IF_NEEDED"
                        "" "")
  set(sources ${arg_UNPARSED_ARGUMENTS})
  if(NOT sources)
    message(FATAL_ERROR "pnmpi_add_module(${name}): no sources given")
  endif()
  if(TARGET pnmpi-patch)
    set(patcher "$<TARGET_FILE:pnmpi-patch>")
  elseif(TARGET pnmpi::pnmpi-patch)
    set(patcher "$<TARGET_FILE:pnmpi::pnmpi-patch>")
  else()
    message(FATAL_ERROR "pnmpi_add_module(${name}): no pnmpi-patch target; add the patcher "
                        "directory first, or find_package(pnmpi)")
  endif()
  if(NOT TARGET MPI::MPI_C)
    message(FATAL_ERROR "pnmpi_add_module(${name}): MPI::MPI_C is missing; "
                        "call find_package(MPI REQUIRED COMPONENTS C) first")
  endif()

  if(PNMPI_MODULE_BUILD_DIR)
    set(module_dir "${PNMPI_MODULE_BUILD_DIR}")
  else()
    set(module_dir "${PROJECT_BINARY_DIR}/modules")
  endif()

  add_library(${name} MODULE ${sources})
  target_link_libraries(${name} PRIVATE MPI::MPI_C)
  # The module API header (<pnmpi/pnmpi.h>): in-tree target or installed package.
  if(TARGET pnmpi_headers)
    target_link_libraries(${name} PRIVATE pnmpi_headers)
  elseif(TARGET pnmpi::headers)
    target_link_libraries(${name} PRIVATE pnmpi::headers)
  endif()
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    C_STANDARD 11
    LIBRARY_OUTPUT_DIRECTORY "${module_dir}")
  if(NOT arg_DEFAULT_VISIBILITY)
    set_target_properties(${name} PROPERTIES
      C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  endif()
  # Modules use MPI's C interface; C++ sources must not pull in the MPI C++ bindings (a
  # library the core does not load for them).
  target_compile_definitions(${name} PRIVATE OMPI_SKIP_MPICXX MPICH_SKIP_MPICXX)
  # Calls to the next layer through the GOT (`jmp *XMPI_X@GOT`), not a PLT stub: one
  # indirect branch per layer instead of two, which halves the time per layer of deep
  # stacks (bench/run_bench.py: 3.9 against 7.9 ns per layer at 1,000 layers). The core
  # binds the GOT slot either way.
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANG_AND_ID:C,GNU,Clang>:-fno-plt>
                                         $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-fno-plt>)
  if(TARGET pnmpi-patch)
    add_dependencies(${name} pnmpi-patch)
  endif()

  if(arg_PATCH_IF_NEEDED)
    add_custom_command(TARGET ${name} POST_BUILD
      COMMAND "${CMAKE_COMMAND}" "-DPNMPI_PATCHER=${patcher}"
              "-DPNMPI_PATCH_IF_NEEDED=$<TARGET_FILE:${name}>"
              -P "${CMAKE_CURRENT_FUNCTION_LIST_FILE}"
      COMMENT "Renaming the PMPI_ calls of ${name}, if any"
      VERBATIM)
  elseif(arg_NO_PMPI_IMPORTS)
    add_custom_command(TARGET ${name} POST_BUILD
      COMMAND "${CMAKE_COMMAND}" "-DPNMPI_PATCHER=${patcher}"
              "-DPNMPI_CHECK_NO_IMPORTS=$<TARGET_FILE:${name}>"
              -P "${CMAKE_CURRENT_FUNCTION_LIST_FILE}"
      COMMENT "Checking that ${name} calls no PMPI_ routine (NO_PMPI_IMPORTS: nothing to patch)"
      VERBATIM)
  else()
    add_custom_command(TARGET ${name} POST_BUILD
      COMMAND ${patcher} --in-place $<TARGET_FILE:${name}>
      COMMENT "Patching ${name} into a pnmpi module"
      VERBATIM)
  endif()

  if(PNMPI_MODULE_ADD_NEEDED)
    find_program(PNMPI_PATCHELF patchelf)
    if(NOT PNMPI_PATCHELF)
      message(FATAL_ERROR "PNMPI_MODULE_ADD_NEEDED=ON needs patchelf")
    endif()
    add_custom_command(TARGET ${name} POST_BUILD
      COMMAND ${PNMPI_PATCHELF} --add-needed libpnmpi.so $<TARGET_FILE:${name}>
      VERBATIM)
  endif()
endfunction()

# The original PnMPI's module functions (see the top of this file).
function(pnmpi_add_pmpi_module name)
  pnmpi_add_module(${name} DEFAULT_VISIBILITY ${ARGN})
endfunction()

function(pnmpi_add_xmpi_module name)
  pnmpi_add_module(${name} DEFAULT_VISIBILITY PATCH_IF_NEEDED ${ARGN})
endfunction()
