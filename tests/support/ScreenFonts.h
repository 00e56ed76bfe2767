#pragma once

// Test support shared by the GUI tests.
#include <QApplication>
#include <QFont>

// The application's type at the size it reads on a real screen while the object lives: X11's
// fonts (DejaVu Sans 10) measure about 1.4 times the offscreen platform's, so a test of what fits
// a dock of a 1366 x 768 screen measures with them.
class ScreenFonts {
public:
    static constexpr double kX11Scale = 1.4;

    ScreenFonts() : m_font(QApplication::font()) {
        QFont larger = m_font;
        larger.setPointSizeF(m_font.pointSizeF() * kX11Scale);
        QApplication::setFont(larger);
    }
    ~ScreenFonts() { QApplication::setFont(m_font); }
    ScreenFonts(const ScreenFonts&) = delete;
    ScreenFonts& operator=(const ScreenFonts&) = delete;

private:
    QFont m_font;
};
