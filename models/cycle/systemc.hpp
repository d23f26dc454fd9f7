#pragma once
// The one place the project includes SystemC, so every model sees the same configuration
// (dynamic processes for sc_spawn, which replaces the SC_HAS_PROCESS idiom).

#ifndef SC_INCLUDE_DYNAMIC_PROCESSES
#define SC_INCLUDE_DYNAMIC_PROCESSES
#endif
#include <systemc>

#include "models/cycle_type.hpp"
