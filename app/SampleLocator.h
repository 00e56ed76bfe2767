#pragma once

#include <QString>
#include <QStringList>

namespace tpg {

// Where the embedded sample dataset may be, in the order it is looked for: $TPUGRAPHS_SAMPLE_DIR,
// <exe dir>/../share/tpugraphs-explorer/sample (installed), <exe dir>/../resources/sample
// (build tree), and the build tree's path compiled in.
QStringList sampleCandidates();
// The first candidate that is a folder holding at least one .npz; "" when none is.
QString findSampleDir(const QStringList& candidates = sampleCandidates());
// The file to show first in a dataset: a layout graph of a training split (measured runtimes)
// of the xla collection, as far as there is one.
QString preferredFirstFile(const QStringList& paths);
// The sample file the lesson opens: a layout graph of the xla collection's train split (programs of
// convolutions, with measured runtimes), by name; any layout file when there is none; "" without.
QString lessonFile(const QString& sampleDir);
// The sample file the tile lesson opens: a convolution kernel of the tile collection's train split
// (conv_fusion_*, with measured runtimes), else any tile file; "" without.
QString tileLessonFile(const QString& sampleDir);

}  // namespace tpg
