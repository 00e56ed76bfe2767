#pragma once

#include <QString>

namespace tpg {

// Help › About: what the explorer does, how far its runtimes can be trusted, the versions of the
// libraries it was built with and runs on (for a bug report), and where training runs are kept.
QString aboutText(const QString& runsFolder);

}  // namespace tpg
