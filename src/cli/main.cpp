// TEMPORARY entry point until the CLI lands.
#include <cstdio>
int main() { std::puts("rigport"); return 0; }
