"""Multi-word units: English compound nouns and fixed adverbials with German forms.

COMPOUNDS uses the noun format of ``lexicon_nouns`` (English side has spaces; the
German side is one compound word, so alignment is one-to-many). A plural of ``-``
means the noun is only used in the singular.

EXPRESSIONS: ``english|German|frontable`` where English words may carry a
``/TAG`` (otherwise ``lexicon.default_tag`` picks one) and frontable (y/n) says
whether the expression may open a sentence.
"""

COMPOUNDS = """
train station|train stations|Bahnhof|Bahnhöfe|m|l
fire brigade|fire brigades|Feuerwehr|Feuerwehren|f|x
front door|front doors|Haustür|Haustüren|f|t
quality of life|-|Lebensqualität|-|f|x
bus stop|bus stops|Bushaltestelle|Bushaltestellen|f|l
post office|post offices|Postamt|Postämter|n|l
living room|living rooms|Wohnzimmer|Wohnzimmer|n|l
dining room|dining rooms|Esszimmer|Esszimmer|n|l
swimming pool|swimming pools|Schwimmbad|Schwimmbäder|n|l
city hall|city halls|Rathaus|Rathäuser|n|l
police station|police stations|Polizeiwache|Polizeiwachen|f|l
fire station|fire stations|Feuerwache|Feuerwachen|f|l
washing machine|washing machines|Waschmaschine|Waschmaschinen|f|t
coffee machine|coffee machines|Kaffeemaschine|Kaffeemaschinen|f|t
coffee cup|coffee cups|Kaffeetasse|Kaffeetassen|f|t
tea cup|tea cups|Teetasse|Teetassen|f|t
tea pot|tea pots|Teekanne|Teekannen|f|t
credit card|credit cards|Kreditkarte|Kreditkarten|f|t
mobile phone|mobile phones|Handy|Handys|n|t
birthday cake|birthday cakes|Geburtstagskuchen|Geburtstagskuchen|m|f
apple pie|apple pies|Apfelkuchen|Apfelkuchen|m|f
chocolate cake|chocolate cakes|Schokoladenkuchen|Schokoladenkuchen|m|f
parking lot|parking lots|Parkplatz|Parkplätze|m|l
traffic light|traffic lights|Ampel|Ampeln|f|t
city centre|city centres|Stadtzentrum|Stadtzentren|n|l
bank account|bank accounts|Bankkonto|Bankkonten|n|x
phone number|phone numbers|Telefonnummer|Telefonnummern|f|x
football game|football games|Fußballspiel|Fußballspiele|n|x
board game|board games|Brettspiel|Brettspiele|n|t
computer game|computer games|Computerspiel|Computerspiele|n|t
picture book|picture books|Bilderbuch|Bilderbücher|n|t
cook book|cook books|Kochbuch|Kochbücher|n|t
text book|text books|Lehrbuch|Lehrbücher|n|t
guest room|guest rooms|Gästezimmer|Gästezimmer|n|l
hotel room|hotel rooms|Hotelzimmer|Hotelzimmer|n|l
waiting room|waiting rooms|Wartezimmer|Wartezimmer|n|l
office building|office buildings|Bürogebäude|Bürogebäude|n|l
street lamp|street lamps|Straßenlaterne|Straßenlaternen|f|t
road sign|road signs|Straßenschild|Straßenschilder|n|t
soup spoon|soup spoons|Suppenlöffel|Suppenlöffel|m|t
bread knife|bread knives|Brotmesser|Brotmesser|n|t
paper bag|paper bags|Papiertüte|Papiertüten|f|t
plastic bag|plastic bags|Plastiktüte|Plastiktüten|f|t
shoe shop|shoe shops|Schuhgeschäft|Schuhgeschäfte|n|l
book shop|book shops|Buchhandlung|Buchhandlungen|f|l
flower shop|flower shops|Blumenladen|Blumenläden|m|l
birthday party|birthday parties|Geburtstagsfeier|Geburtstagsfeiern|f|x
history lesson|history lessons|Geschichtsstunde|Geschichtsstunden|f|x
music teacher|music teachers|Musiklehrer|Musiklehrer|m|p
bus driver|bus drivers|Busfahrer|Busfahrer|m|p
taxi driver|taxi drivers|Taxifahrer|Taxifahrer|m|p
fire fighter|fire fighters|Feuerwehrmann|Feuerwehrmänner|m|p
head teacher|head teachers|Schulleiterin|Schulleiterinnen|f|p
car key|car keys|Autoschlüssel|Autoschlüssel|m|t
house key|house keys|Hausschlüssel|Hausschlüssel|m|t
door bell|door bells|Türklingel|Türklingeln|f|t
wine glass|wine glasses|Weinglas|Weingläser|n|t
water bottle|water bottles|Wasserflasche|Wasserflaschen|f|t
summer holiday|summer holidays|Sommerurlaub|Sommerurlaube|m|x
winter coat|winter coats|Wintermantel|Wintermäntel|m|t
lunch break|lunch breaks|Mittagspause|Mittagspausen|f|x
sports car|sports cars|Sportwagen|Sportwagen|m|t
art museum|art museums|Kunstmuseum|Kunstmuseen|n|l
city map|city maps|Stadtplan|Stadtpläne|m|t
world map|world maps|Weltkarte|Weltkarten|f|t
travel guide|travel guides|Reiseführer|Reiseführer|m|t
fruit salad|fruit salads|Obstsalat|Obstsalate|m|f
potato soup|potato soups|Kartoffelsuppe|Kartoffelsuppen|f|f
tomato soup|tomato soups|Tomatensuppe|Tomatensuppen|f|f
vegetable soup|vegetable soups|Gemüsesuppe|Gemüsesuppen|f|f
chicken soup|chicken soups|Hühnersuppe|Hühnersuppen|f|f
cheese cake|cheese cakes|Käsekuchen|Käsekuchen|m|f
vegetable garden|vegetable gardens|Gemüsegarten|Gemüsegärten|m|l
mountain village|mountain villages|Bergdorf|Bergdörfer|n|l
fishing boat|fishing boats|Fischerboot|Fischerboote|n|t
sail boat|sail boats|Segelboot|Segelboote|n|t
weather report|weather reports|Wetterbericht|Wetterberichte|m|x
point of view|points of view|Standpunkt|Standpunkte|m|x
means of transport|means of transport|Verkehrsmittel|Verkehrsmittel|n|x
place of work|places of work|Arbeitsplatz|Arbeitsplätze|m|l
work of art|works of art|Kunstwerk|Kunstwerke|n|t
school bag|school bags|Schultasche|Schultaschen|f|t
tennis ball|tennis balls|Tennisball|Tennisbälle|m|t
shopping list|shopping lists|Einkaufsliste|Einkaufslisten|f|t
flower pot|flower pots|Blumentopf|Blumentöpfe|m|t
kitchen table|kitchen tables|Küchentisch|Küchentische|m|t
garden gate|garden gates|Gartentor|Gartentore|n|t
bus ticket|bus tickets|Busfahrkarte|Busfahrkarten|f|t
train ticket|train tickets|Zugfahrkarte|Zugfahrkarten|f|t
dog house|dog houses|Hundehütte|Hundehütten|f|l
bird cage|bird cages|Vogelkäfig|Vogelkäfige|m|t
fish tank|fish tanks|Aquarium|Aquarien|n|t
sleeping bag|sleeping bags|Schlafsack|Schlafsäcke|m|t
toy car|toy cars|Spielzeugauto|Spielzeugautos|n|t
race car|race cars|Rennwagen|Rennwagen|m|t
football field|football fields|Fußballplatz|Fußballplätze|m|l
tennis court|tennis courts|Tennisplatz|Tennisplätze|m|l
concert hall|concert halls|Konzertsaal|Konzertsäle|m|l
market square|market squares|Marktplatz|Marktplätze|m|l
church tower|church towers|Kirchturm|Kirchtürme|m|t
farm house|farm houses|Bauernhaus|Bauernhäuser|n|l
summer house|summer houses|Sommerhaus|Sommerhäuser|n|l
tree house|tree houses|Baumhaus|Baumhäuser|n|l
letter box|letter boxes|Briefkasten|Briefkästen|m|t
photo album|photo albums|Fotoalbum|Fotoalben|n|t
bedside table|bedside tables|Nachttisch|Nachttische|m|t
wall clock|wall clocks|Wanduhr|Wanduhren|f|t
alarm clock|alarm clocks|Wecker|Wecker|m|t
music school|music schools|Musikschule|Musikschulen|f|l
language course|language courses|Sprachkurs|Sprachkurse|m|x
job interview|job interviews|Vorstellungsgespräch|Vorstellungsgespräche|n|x
driving licence|driving licences|Führerschein|Führerscheine|m|t
fairy tale|fairy tales|Märchen|Märchen|n|x
love letter|love letters|Liebesbrief|Liebesbriefe|m|t
"""

EXPRESSIONS = """
as/RB soon/RB as/IN possible/JJ|so bald wie möglich|n
at the moment|im Moment|y
in the morning|am Morgen|y
in the evening|am Abend|y
in the afternoon|am Nachmittag|y
at night|in der Nacht|y
at the weekend|am Wochenende|y
every day|jeden Tag|y
every week|jede Woche|y
every morning|jeden Morgen|y
every evening|jeden Abend|y
from time to time|von Zeit zu Zeit|y
in the end|am Ende|y
at home|zu Hause|n
by bus|mit dem Bus|n
by train|mit dem Zug|n
by car|mit dem Auto|n
on foot|zu Fuß|n
of/RB course/RB|natürlich|y
at least|wenigstens|y
at first|zuerst|y
at last|endlich|y
right/RB now/RB|gerade|n
once/RB again/RB|noch einmal|n
all/DT day|den ganzen Tag|y
all/PDT the time|die ganze Zeit|y
on Monday/NNP|am Montag|y
on Tuesday/NNP|am Dienstag|y
on Wednesday/NNP|am Mittwoch|y
on Thursday/NNP|am Donnerstag|y
on Friday/NNP|am Freitag|y
on Saturday/NNP|am Samstag|y
on Sunday/NNP|am Sonntag|y
in the summer|im Sommer|y
in the winter|im Winter|y
in the spring|im Frühling|y
in the autumn|im Herbst|y
next week|nächste Woche|y
next year|nächstes Jahr|y
next month|nächsten Monat|y
this morning|heute Morgen|y
this evening|heute Abend|y
tomorrow/NN morning|morgen früh|y
in the meantime|inzwischen|y
for a while|eine Weile|n
on time|pünktlich|n
in a hurry|in Eile|n
by chance|zufällig|y
on purpose|absichtlich|n
in secret|heimlich|n
at once|sofort|y
after a while|nach einer Weile|y
in the middle of the night|mitten in der Nacht|y
the day after tomorrow/NN|übermorgen|y
once/RB a week|einmal pro Woche|n
twice/RB a day|zweimal am Tag|n
now/RB and/CC then/RB|ab und zu|y
sooner/RBR or/CC later/RBR|früher oder später|y
at the same/JJ time|gleichzeitig|y
in the beginning|am Anfang|y
for the first/JJ time|zum ersten Mal|y
without a doubt|ohne Zweifel|y
in any/DT case|auf jeden Fall|y
as/IN usual/JJ|wie immer|y
after work|nach der Arbeit|y
after school|nach der Schule|y
before breakfast|vor dem Frühstück|y
after dinner|nach dem Abendessen|y
"""
