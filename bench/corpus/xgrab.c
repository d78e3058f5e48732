/* Writes the root window of $DISPLAY as a binary PPM (make_corpus.sh).
 * Minetest's own screenshot key saves black frames under Xvfb + llvmpipe,
 * so the corpus reads what the X server shows instead. */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    Display *d = XOpenDisplay(NULL);
    if (d == NULL) return 1;
    Window root = DefaultRootWindow(d);
    XWindowAttributes a;
    XGetWindowAttributes(d, root, &a);
    XImage *im = XGetImage(d, root, 0, 0, (unsigned)a.width, (unsigned)a.height, AllPlanes,
                           ZPixmap);
    FILE *f = fopen(argv[1], "wb");
    if (im == NULL || f == NULL) return 1;
    fprintf(f, "P6\n%d %d\n255\n", a.width, a.height);
    for (int y = 0; y < a.height; y++)
        for (int x = 0; x < a.width; x++) {
            unsigned long p = XGetPixel(im, x, y);
            fputc((int)(p >> 16) & 255, f);
            fputc((int)(p >> 8) & 255, f);
            fputc((int)p & 255, f);
        }
    return fclose(f) != 0;
}
