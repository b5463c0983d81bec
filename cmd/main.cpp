#include "cli.h"

int main(int argc, char** argv) { return fakeprop::cli::run(argc, argv); }
