# Warnings are on for every project target and must stay clean.
add_library(torus_warnings INTERFACE)
target_compile_options(torus_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
