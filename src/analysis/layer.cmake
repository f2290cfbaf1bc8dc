# Extra dependencies of the analysis layer (included by src/CMakeLists.txt after lbsim_analysis exists).
# COIN-OR CLP solves the maximum-achievable-throughput LPs (mat.cpp, [SlimFly] sec. 6.4).
pkg_check_modules(CLP REQUIRED IMPORTED_TARGET clp)
target_link_libraries(lbsim_analysis PUBLIC PkgConfig::CLP)
