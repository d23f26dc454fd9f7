#include "sim/program_verifier.hpp"
