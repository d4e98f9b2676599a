# Passed to llama-cpp-python's build as CMAKE_PROJECT_INCLUDE (cluster/local/setup.sh, the images): CMake reads it
# at the end of every project() call. llama-cpp-python forces llama.cpp's `common` library on, but its Python
# package loads only libllama and ggml; common (chat parsers, argument parsing, downloads) is half of what is left
# to compile once the multimodal library is off (-DLLAVA_BUILD=OFF). Turning it off again inside llama.cpp's own
# project() halves the build (docs/setup.md); the LLM tests load the result.
if(PROJECT_NAME STREQUAL "llama.cpp")
  set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama.cpp common library: not loaded by llama-cpp-python" FORCE)
endif()
