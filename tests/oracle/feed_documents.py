"""Feed documents the RSS Read cases serve: RSS 2.0, 0.92, 1.0 (RDF) and Atom, written here.

Each is (content type, body bytes). Between them they hold what rss-parser's item shape reads:
HTML escaped and in CDATA, ``content:encoded``, ``dc:*``, categories with and without a domain,
enclosures, guids with attributes, podcast ``itunes:*``, Atom links by ``rel``, authors, xhtml
content, missing fields, empty elements, and dates in RFC 822 forms (zones by name and offset, two
digit years), ISO forms (with and without an offset) and ones JavaScript cannot read.
"""

from __future__ import annotations

RSS2 = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/"
     xmlns:media="http://search.yahoo.com/mrss/">
  <channel>
    <title>Oracle news</title>
    <link>https://news.example.test/</link>
    <description>Every field rss-parser reads</description>
    <item>
      <title>First &amp; foremost</title>
      <link>https://news.example.test/1</link>
      <description>&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt;&lt;/p&gt;&lt;p&gt;Second&amp;nbsp;para&lt;/p&gt;</description>
      <pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate>
      <guid isPermaLink="false">urn:item:1</guid>
      <category>Tech</category>
      <category domain="https://news.example.test/c">World</category>
      <dc:creator>Ada Lovelace</dc:creator>
      <enclosure url="https://news.example.test/1.mp3" length="1234" type="audio/mpeg"/>
      <comments>https://news.example.test/1#comments</comments>
      <media:thumbnail url="https://news.example.test/1.jpg" width="120"/>
    </item>
    <item>
      <title><![CDATA[Second <em>with</em> CDATA]]></title>
      <link>https://news.example.test/2</link>
      <description><![CDATA[<div>Block one</div><div>Block two</div> <br/>after &copy; 2024]]></description>
      <content:encoded><![CDATA[<h1>Full</h1><ul><li>one</li><li>two</li></ul><p>text &amp; more</p>]]></content:encoded>
      <pubDate>Wed, 03 Jan 2024 09:30:00 +0200</pubDate>
      <author>editor@example.test (Editor)</author>
      <guid>https://news.example.test/2</guid>
      <dc:date>2024-01-03T07:30:00Z</dc:date>
    </item>
    <item>
      <title>No date, no link</title>
      <description></description>
    </item>
    <item>
      <title>   </title>
      <pubDate>02 Jan 24 10:00 EST</pubDate>
      <description>Plain text only</description>
    </item>
    <item>
      <title>Bad date</title>
      <pubDate>Tue, 02 Jan 2024 10:00:00 CET</pubDate>
      <dc:creator>One</dc:creator>
      <dc:creator>Two</dc:creator>
    </item>
  </channel>
</rss>
"""

PODCAST = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
  <channel>
    <title>Oracle cast</title>
    <itunes:author>Host</itunes:author>
    <item>
      <title>Episode 1</title>
      <itunes:duration>00:42:00</itunes:duration>
      <itunes:episode>1</itunes:episode>
      <itunes:explicit>false</itunes:explicit>
      <itunes:image href="https://cast.example.test/1.png"/>
      <enclosure url="https://cast.example.test/1.mp3" type="audio/mpeg" length="99"/>
      <pubDate>Mon, 01 Jan 2024 00:00:00 -0500</pubDate>
    </item>
    <item>
      <title>Episode 2</title>
      <itunes:summary><![CDATA[A <b>summary</b>]]></itunes:summary>
    </item>
  </channel>
</rss>
"""

ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:yt="http://www.youtube.com/xml/schemas/2015"
      xmlns:media="http://search.yahoo.com/mrss/">
  <title>Oracle atom</title>
  <link rel="self" href="https://atom.example.test/feed.xml"/>
  <link href="https://atom.example.test/"/>
  <updated>2024-01-05T12:00:00Z</updated>
  <id>urn:feed:oracle</id>
  <entry>
    <title type="html">Atom &lt;i&gt;one&lt;/i&gt;</title>
    <link rel="alternate" href="https://atom.example.test/1"/>
    <link rel="enclosure" href="https://atom.example.test/1.mp4"/>
    <id>urn:entry:1</id>
    <yt:videoId>vid-1</yt:videoId>
    <published>2024-01-04T10:00:00+01:00</published>
    <updated>2024-01-05T10:00:00Z</updated>
    <author><name>Grace Hopper</name><uri>https://atom.example.test/grace</uri></author>
    <content type="html">&lt;p&gt;Rich &lt;a href="https://x.test"&gt;link&lt;/a&gt;&lt;/p&gt;</content>
    <summary>Short summary</summary>
    <media:group><media:title>Media title</media:title></media:group>
  </entry>
  <entry>
    <title>Atom two</title>
    <link href="https://atom.example.test/2"/>
    <id>urn:entry:2</id>
    <updated>2024-01-06T08:15:30.250Z</updated>
    <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Markup &amp; <b>bold</b></p></div></content>
  </entry>
  <entry>
    <title></title>
    <id>urn:entry:3</id>
    <updated>2024-01-07</updated>
    <summary type="text"><![CDATA[  CDATA summary  ]]></summary>
  </entry>
</feed>
"""

RDF = """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
         xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://rdf.example.test/"><title>Oracle RDF</title></channel>
  <item rdf:about="https://rdf.example.test/1">
    <title>RDF one</title>
    <link>https://rdf.example.test/1</link>
    <dc:date>2024-01-08T09:00:00+09:00</dc:date>
    <dc:language>en</dc:language>
    <dc:rights>CC</dc:rights>
  </item>
</rdf:RDF>
"""

RSS092 = """<?xml version="1.0" encoding="ISO-8859-1"?>
<rss version="0.92"><channel><title>Old</title>
<item><title>Caf\xe9 cr\xe8me</title><description>Latin-1 text &lt;br&gt;line</description>
<pubDate>January 9, 2024 3:04 PM</pubDate></item>
</channel></rss>
"""

EMPTY = """<?xml version="1.0"?><rss version="2.0"><channel><title>Nothing yet</title></channel></rss>"""

NOT_A_FEED = """<?xml version="1.0"?><html><body>not a feed</body></html>"""

FEEDS: dict[str, tuple[str, bytes]] = {
    "/feeds/rss2.xml": ("application/rss+xml; charset=utf-8", RSS2.encode()),
    "/feeds/podcast.xml": ("application/rss+xml", PODCAST.encode()),
    "/feeds/atom.xml": ("application/atom+xml", ATOM.encode()),
    "/feeds/rdf.xml": ("application/rdf+xml", RDF.encode()),
    "/feeds/old.xml": ("text/xml; charset=ISO-8859-1", RSS092.encode("latin-1")),
    "/feeds/empty.xml": ("application/rss+xml", EMPTY.encode()),
    "/feeds/html.xml": ("text/xml", NOT_A_FEED.encode()),
}
