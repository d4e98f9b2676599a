# llama-cpp-python built for text models only: its Python package loads libllama and ggml, nothing else.
# Passed as CMAKE_PROJECT_INCLUDE (cluster/local/setup.sh, the images), so CMake reads it at the end of every
# project() call:
#  - in llama-cpp-python's own project, before its options are declared: the multimodal library (mtmd, loaded
#    only by the vision chat handlers) is switched off;
#  - in llama.cpp's project, after llama-cpp-python forced it on: llama.cpp's common library (chat parsers,
#    argument parsing, downloads), never loaded by the Python package, is switched off again.
# The build then takes 2 min 1 s on two cores instead of 4 min 21 s (docs/setup.md); the LLM tests load the result.
if(PROJECT_NAME STREQUAL "llama_cpp")
  set(LLAVA_BUILD OFF CACHE BOOL "llama-cpp-python: build the multimodal library" FORCE)
elseif(PROJECT_NAME STREQUAL "llama.cpp")
  set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama.cpp common library: not loaded by llama-cpp-python" FORCE)
endif()
