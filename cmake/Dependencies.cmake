# Every dependency is a Debian 12 package installed by tools/setup.sh.
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(Catch2 2 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(SYSTEMC REQUIRED IMPORTED_TARGET systemc)
pkg_check_modules(FFTW3 REQUIRED IMPORTED_TARGET fftw3 fftw3f)

# Debian's libsystemc is built as C++17, and SystemC checks at link time that every user was
# compiled against the same language level (the sc_api_version symbol). Our code is C++20, so
# tell the SystemC headers which level the library has.
set_property(TARGET PkgConfig::SYSTEMC APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS SC_CPLUSPLUS=201703L)

# Sweeps across machines (sim/mpi_sweep.hpp) are built when MPI is found (Debian: openmpi-bin,
# libopenmpi-dev); without it, or with -DTORUS_MPI=OFF, `sweep` runs on one machine only.
option(TORUS_MPI "build sweeps across machines when MPI is found" ON)
if(TORUS_MPI)
  set(MPI_CXX_SKIP_MPICXX ON)  # the C API from C++; not the deprecated C++ bindings
  find_package(MPI COMPONENTS CXX)
endif()
