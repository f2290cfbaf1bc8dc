#include "routing/ecmp_paths.h"

#include "routing/registry.h"

namespace lbsim::routing {
namespace {
const RegisterRouting kEcmpPaths{
    {{"ecmp_paths",
      "ECMP over the bounded simple paths of each switch pair, minimal or not: the Spritz paper's ECMP baseline "
      "([Spritz] sec. V-A).",
      {},
      {}},
     [](const RoutingContext& c) { return std::make_unique<EcmpPathsRouter>(c.tables, c.seed); },
     {},
     {},
     &bounded_path_memory}};
}  // namespace
}  // namespace lbsim::routing
