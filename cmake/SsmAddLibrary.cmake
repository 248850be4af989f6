# ssm_add_library(<target> GRAPH <graph.mlir> [TARGET <halide-target>] [NAME <c-name>])
#
# Compiles the MLIR graph with ssm-compile at build time (again whenever the
# graph or the compiler changes) and makes <target> a static library to link:
# its include directory holds <name>.h (one declaration per function,
# <name>_<function>(halide_buffer_t *...), see docs/embedding.md for the calling
# convention) and Halide's HalideRuntime.h. The like of Halide's
# add_halide_library.
#   TARGET  a Halide target string (default: host, the machine that builds)
#   NAME    library name and symbol prefix (default: <target> with - and . as _);
#           distinct NAMEs let several graphs link into one program
# The compiled folder (also lib<name>.so and manifest.json, for the model
# library) is <target>.ssm/ in the current binary directory; its path is in the
# target's SSM_MODULE_DIR property.
function(ssm_add_library target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "GRAPH;TARGET;NAME" "")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ssm_add_library(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_GRAPH)
    message(FATAL_ERROR "ssm_add_library(${target}): GRAPH <file.mlir> is required")
  endif()
  if(NOT ARG_TARGET)
    set(ARG_TARGET host)
  endif()
  if(NOT ARG_NAME)
    string(REGEX REPLACE "[^A-Za-z0-9_]" "_" ARG_NAME "${target}")
  endif()
  if(NOT ARG_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "ssm_add_library(${target}): NAME '${ARG_NAME}' is not a C identifier")
  endif()
  get_filename_component(graph "${ARG_GRAPH}" ABSOLUTE)
  if(NOT EXISTS "${graph}")
    message(FATAL_ERROR "ssm_add_library(${target}): GRAPH ${graph} does not exist")
  endif()
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}.ssm")
  set(outputs "${out}/${ARG_NAME}.a" "${out}/${ARG_NAME}.h" "${out}/lib${ARG_NAME}.so"
              "${out}/manifest.json")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${CMAKE_COMMAND}" -E rm -rf "${out}"
    COMMAND ssm-opt::ssm-compile "${graph}" --target "${ARG_TARGET}" --name "${ARG_NAME}" -o "${out}"
    DEPENDS "${graph}" ssm-opt::ssm-compile
    COMMENT "ssm-compile ${ARG_GRAPH} for ${ARG_TARGET} -> ${ARG_NAME}"
    VERBATIM)
  add_custom_target(${target}.ssm-compile DEPENDS ${outputs})
  # Imported targets must name include directories that exist when CMake generates.
  file(MAKE_DIRECTORY "${out}")
  find_package(Threads REQUIRED)
  add_library(${target} STATIC IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES
    IMPORTED_LOCATION "${out}/${ARG_NAME}.a"
    INTERFACE_INCLUDE_DIRECTORIES "${out}"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m"
    SSM_MODULE_DIR "${out}")
  add_dependencies(${target} ${target}.ssm-compile)
endfunction()
