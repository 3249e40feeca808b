#!/usr/bin/env bash
# Recreates the photo fixtures for PhotoScrubberTests: small real images written by real encoders,
# then loaded with real metadata by exiftool (GPS, camera, serials, dates, orientation 6, XMP,
# IPTC, comments, an EXIF thumbnail, an ICC profile, a trailer after EOI).
#
# Made with (Debian 12): apt-get install -y imagemagick libimage-exiftool-perl webp
#   ImageMagick 6.9.11-60 Q16, ExifTool 12.57, libwebp tools (cwebp, img2webp, webpmux) 1.2.4.
# Other versions give other bytes; the tests only rely on the metadata listed below.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A 64x48 picture with a gradient and two shapes; a copy with transparency for WebP's ALPH chunk.
convert -size 64x48 gradient:'#ff8800-#0044ff' -fill white -draw 'circle 20,20 28,28' \
    -fill '#22aa44' -draw 'rectangle 40,8 58,30' -depth 8 "$work/base.png"
convert "$work/base.png" -alpha set -channel A -fx 'i<8 ? 0.5 : 1' +channel "$work/alpha.png"
convert "$work/base.png" -resize 16x12 -quality 60 "$work/thumb.jpg"

# The metadata every fixture carries (what each format can hold of it).
exif=(
    -GPSLatitude=37.5665 -GPSLatitudeRef=N -GPSLongitude=126.9780 -GPSLongitudeRef=E
    -Make=SoomSecretMake -Model=SoomSecretModel -ExifIFD:SerialNumber=SOOMBODY0002
    "-DateTimeOriginal=2024:05:01 12:34:56" -Orientation#=6
)
xmp=(
    -XMP-xmp:CreatorTool=SoomSecretTool -XMP-aux:SerialNumber=SOOMSERIAL0001
    -XMP-exif:GPSLatitude=37.5665 -XMP-exif:GPSLongitude=126.9780
)
tag() { exiftool -q -overwrite_original "$@"; }

# JPEG baseline (ImageMagick writes JFIF APP0): big-endian EXIF with a thumbnail, XMP, IPTC, COM.
convert "$work/base.png" -quality 85 jpeg-baseline.jpg
tag "${exif[@]}" "${xmp[@]}" "-ThumbnailImage<=$work/thumb.jpg" "-Comment=soom secret comment" \
    -IPTC:Keywords=SoomIptcKeyword -IPTC:City=SoomIptcCity jpeg-baseline.jpg

# JPEG progressive (several SOS with DHT between): little-endian EXIF, XMP, IPTC, COM.
convert "$work/base.png" -quality 85 -interlace JPEG jpeg-progressive.jpg
tag -ExifByteOrder=Little-endian "${exif[@]}" "${xmp[@]}" "-Comment=soom secret comment" \
    -IPTC:Keywords=SoomIptcKeyword -IPTC:City=SoomIptcCity jpeg-progressive.jpg

# JPEG with an ICC profile (APP2 ICC_PROFILE, kept) and the usual metadata.
convert "$work/base.png" -quality 85 -profile /usr/share/color/icc/ghostscript/a98.icc jpeg-icc.jpg
tag "${exif[@]}" "${xmp[@]}" "-Comment=soom secret comment" jpeg-icc.jpg

# JPEG with bytes after EOI, the way phones append a trailer (here: text naming the secret place).
cp jpeg-baseline.jpg jpeg-trailer.jpg
printf 'SOOMTRAILER motion photo at 37.5665N 126.9780E' >> jpeg-trailer.jpg

# PNG: eXIf, XMP in iTXt, a tEXt and a zTXt comment, ImageMagick's own tEXt dates, an iCCP profile.
convert "$work/base.png" -profile /usr/share/color/icc/ghostscript/a98.icc png-metadata.png
tag "${exif[@]}" "${xmp[@]}" "-PNG:Comment=soom secret comment" png-metadata.png
tag -z "-PNG:Title=$(printf 'soom secret title %.0s' 1 2 3 4 5 6)" png-metadata.png  # long enough to be compressed

# WebP lossy with alpha (VP8X + ALPH + VP8), EXIF and XMP chunks written by exiftool.
cwebp -quiet -q 80 "$work/alpha.png" -o webp-lossy.webp
tag "${exif[@]}" "${xmp[@]}" webp-lossy.webp

# WebP lossless (VP8L) with EXIF and XMP written by exiftool.
cwebp -quiet -lossless "$work/base.png" -o webp-lossless.webp
tag "${exif[@]}" "${xmp[@]}" webp-lossless.webp

# Animated WebP (VP8X + ANIM + two ANMF frames, each holding a VP8 bitstream) with EXIF and XMP.
convert "$work/base.png" -flop "$work/flopped.png"
img2webp -loop 0 -lossy -q 60 -d 200 "$work/base.png" "$work/flopped.png" -o webp-animated.webp >/dev/null
tag "${exif[@]}" "${xmp[@]}" webp-animated.webp

# WebP lossless whose EXIF chunk starts with "Exif\0\0" before the TIFF data (some writers do this).
exiftool -q -b -EXIF jpeg-progressive.jpg > "$work/exif.tiff"
{ printf 'Exif\0\0'; cat "$work/exif.tiff"; } > "$work/exif.bin"
cwebp -quiet -lossless "$work/base.png" -o "$work/plain.webp"
webpmux -set exif "$work/exif.bin" "$work/plain.webp" -o webp-exif-prefix.webp

ls -l ./*.jpg ./*.png ./*.webp
