/* SPDX-License-Identifier: ISC */
/*
 * test_tlscrypto.c - the cryptography behind src/tlscrypto.h (kdf.c,
 * recprot.c, kx.c, sig.c), TLS 1.2 record protection included, byte for byte against RFC 8448 (example
 * handshake traces), records of both versions made by
 * another implementation (tests/unit/tlscrypto_vectors.py, Python's
 * cryptography package), and signatures made by OpenSSL.  The signatures
 * made here are written to build/unit/ for OpenSSL to check in make unit.
 */
#include <stdio.h>
#include <string.h>
#include <bearssl.h>

#include "prim.h"
#include "primpin.h"
#include "tlscrypto.h"
#include "keys_der.h"
#include "unit.h"

/*
 * RFC 8448 section 3, "Simple 1-RTT Handshake": the handshake messages
 * (ClientHello, ServerHello, the server's encrypted flight EE ||
 * Certificate || CertificateVerify || Finished as one blob), and the
 * protected records as the RFC prints them ("complete record").
 */
/* 196 bytes */
static const char CH[] =
    "010000c00303cb34ecb1e78163ba1c38c6dacb196a6dffa21a8d9912ec18a2ef"
    "6283024dece7000006130113031302010000910000000b000900000673657276"
    "6572ff01000100000a00140012001d0017001800190100010101020103010400"
    "230000003300260024001d002099381de560e4bd43d23d8e435a7dbafeb3c06e"
    "51c13cae4d5413691e529aaf2c002b0003020304000d0020001e040305030603"
    "020308040805080604010501060102010402050206020202002d00020101001c"
    "00024001";

/* 90 bytes */
static const char SH[] =
    "020000560303a6af06a4121860dc5e6e60249cd34c95930c8ac5cb1434dac155"
    "772ed3e2692800130100002e00330024001d0020c9828876112095fe66762bdb"
    "f7c672e156d6cc253b833df1dd69b1b04e751f0f002b00020304";

/* 657 bytes */
static const char FLIGHT[] =
    "080000240022000a00140012001d00170018001901000101010201030104001c"
    "00024001000000000b0001b9000001b50001b0308201ac30820115a003020102"
    "020102300d06092a864886f70d01010b0500300e310c300a0603550403130372"
    "7361301e170d3136303733303031323335395a170d3236303733303031323335"
    "395a300e310c300a0603550403130372736130819f300d06092a864886f70d01"
    "0101050003818d0030818902818100b4bb498f8279303d980836399b36c6988c"
    "0c68de55e1bdb826d3901a2461eafd2de49a91d015abbc9a95137ace6c1af19e"
    "aa6af98c7ced43120998e187a80ee0ccb0524b1b018c3e0b63264d449a6d38e2"
    "2a5fda430846748030530ef0461c8ca9d9efbfae8ea6d1d03e2bd193eff0ab9a"
    "8002c47428a6d35a8d88d79f7f1e3f0203010001a31a301830090603551d1304"
    "023000300b0603551d0f0404030205a0300d06092a864886f70d01010b050003"
    "81810085aad2a0e5b9276b908c65f73a7267170618a54c5f8a7b337d2df7a594"
    "365417f2eae8f8a58c8f8172f9319cf36b7fd6c55b80f21a03015156726096fd"
    "335e5e67f2dbf102702e608ccae6bec1fc63a42a99be5c3eb7107c3c54e9b9eb"
    "2bd5203b1c3b84e0a8b2f759409ba3eac9d91d402dcc0cc8f8961229ac9187b4"
    "2b4de100000f000084080400805a747c5d88fa9bd2e55ab085a61015b7211f82"
    "4cd484145ab3ff52f1fda8477b0b7abc90db78e2d33a5c141a078653fa6bef78"
    "0c5ea248eeaaa785c4f394cab6d30bbe8d4859ee511f602957b15411ac027671"
    "459e46445c9ea58c181e818e95b8c3fb0bf3278409d3be152a3da5043e063dda"
    "65cdf5aea20d53dfacd42f74f3140000209b9b141d906337fbd2cbdce71df4de"
    "da4ab42c309572cb7fffee5454b78f0718";

/* 679 bytes */
static const char FLIGHT_REC[] =
    "17030302a2d1ff334a56f5bff6594a07cc87b580233f500f45e489e7f33af35e"
    "df7869fcf40aa40aa2b8ea73f848a7ca07612ef9f945cb960b4068905123ea78"
    "b111b429ba9191cd05d2a389280f526134aadc7fc78c4b729df828b5ecf7b13b"
    "d9aefb0e57f271585b8ea9bb355c7c79020716cfb9b1183ef3ab20e37d57a6b9"
    "d7477609aee6e122a4cf51427325250c7d0e509289444c9b3a648f1d71035d2e"
    "d65b0e3cdd0cbae8bf2d0b227812cbb360987255cc744110c453baa4fcd61092"
    "8d809810e4b7ed1a8fd991f06aa6248204797e36a6a73b70a2559c09ead68694"
    "5ba246ab66e5edd8044b4c6de3fcf2a89441ac66272fd8fb330ef8190579b368"
    "4596c960bd596eea520a56a8d650f563aad27409960dca63d3e688611ea5e22f"
    "4415cf9538d51a200c27034272968a264ed6540c84838d89f72c24461aad6d26"
    "f59ecaba9acbbb317b66d902f4f292a36ac1b639c637ce343117b65962224531"
    "7b49eeda0c6258f100d7d961ffb138647e92ea330faeea6dfa31c7a84dc3bd7e"
    "1b7a6c7178af36879018e3f252107f243d243dc7339d5684c8b0378bf30244da"
    "8c87c843f5e56eb4c5e8280a2b48052cf93b16499a66db7cca71e4599426f7d4"
    "61e66f99882bd89fc50800becca62d6c74116dbd2972fda1fa80f85df881edbe"
    "5a37668936b335583b599186dc5c6918a396fa48a181d6b6fa4f9d62d513afbb"
    "992f2b992f67f8afe67f76913fa388cb5630c8ca01e0c65d11c66a1e2ac4c859"
    "77b7c7a6999bbf10dc35ae69f5515614636c0b9b68c19ed2e31c0b3b66763038"
    "ebba42f3b38edc0399f3a9f23faa63978c317fc9fa66a73f60f0504de93b5b84"
    "5e275592c12335ee340bbc4fddd502784016e4b3be7ef04dda49f4b440a30cb5"
    "d2af939828fd4ae3794e44f94df5a631ede42c1719bfdabf0253fe5175be898e"
    "750edc53370d2b";

/* 58 bytes */
static const char FIN_REC[] =
    "170303003575ec4dc238cce60b298044a71e219c56cc77b0517fe9b93c7a4bfc"
    "44d87f38f80338ac98fc46deb384bd1caeacab6867d726c40546";

/* 227 bytes */
static const char TICKET_REC[] =
    "17030300de3a6b8f90414a97d6959c3487680de5134a2b240e6cffac116e95d4"
    "1d6af8f6b580dcf3d11d63c758db289a015940252f55713e061dc13e078891a3"
    "8efbcf5753ad8ef170ad3c7353d16d9da773b9ca7f2b9fa1b6c0d4a3d03f75e0"
    "9c30ba1e62972ac46f75f7b981be63439b2999ce13064615139891d5e4c5b406"
    "f16e3fc181a77ca475840025db2f0a77f81b5ab05b94c01346755f69232c8651"
    "9d86cbeeac87aac347d143f9605d64f650db4d023e70e952ca49fe5137121c74"
    "bc2697687e248746d6df353005f3bce18696129c8153556b3b6c6779b37bf159"
    "85684f";

/* 72 bytes */
static const char CLIENT_APP_REC[] =
    "1703030043a23f7054b62c94d0affafe8228ba55cbefacea42f914aa66bcab3f"
    "2b9819a8a5b46b395bd54a9a20441e2b62974e1f5a6292a2977014bd1e3deae6"
    "3aeebb21694915e4";

/* 72 bytes */
static const char SERVER_APP_REC[] =
    "17030300432e937e11ef4ac740e538ad36005fc4a46932fc3225d05f82aa1b36"
    "e30efaf97d90e6dffc602dcb501a59a8fcc49c4bf2e5f0a21c0047c2abf33254"
    "0dd032e167c2955d";

/* 24 bytes */
static const char SERVER_ALERT_REC[] =
    "1703030013b58fd67166ebf599d24720cfbe7efa7a8864a9";

/* 24 bytes */
static const char CLIENT_ALERT_REC[] =
    "1703030013c9872760655666b74d7ff1153efd6db6d0b0e3";

/* 477 bytes */
static const char PSK_CH_PREFIX[] =
    "010001fc03031bc3ceb6bbe39cff938355b5a50adb6db21b7a6af649d7b4bc41"
    "9d7876487d95000006130113031302010001cd0000000b000900000673657276"
    "6572ff01000100000a00140012001d0017001800190100010101020103010400"
    "3300260024001d0020e4ffb68ac05f8d96c99da26698346c6be16482badddafe"
    "051a66b4f18d668f0b002a0000002b0003020304000d0020001e040305030603"
    "020308040805080604010501060102010402050206020202002d00020101001c"
    "0002400100150057000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "2900dd00b800b22c035d829359ee5ff7af4ec900000000262a6494dc486d2c8a"
    "34cb33fa90bf1b0070ad3c498883c9367c09a2be785abc55cd226097a3a98211"
    "7283f82a03a143efd3ff5dd36d64e861be7fd61d2827db279cce145077d454a3"
    "664d4e6da4d29ee03725a6a4dafcd0fc67d2aea70529513e3da2677fa5906c5b"
    "3f7d8f92f228bda40dda721470f9fbf297b5aea617646fac5c03272e970727c6"
    "21a79141ef5f7de6505e5bfbc388e93343694093934ae4d357fad6aacb";

/*
 * RFC 8448 section 5, "HelloRetryRequest": ClientHello1, the
 * HelloRetryRequest, ClientHello2, ServerHello, the server's flight and
 * its record, and the P-256 public shares.
 */
/* 180 bytes */
static const char HRR_CH1[] =
    "010000b00303b0b1c5a5aa37c5919f2ed1d5c6fff7fcb7849716945a2b8cee92"
    "58a346677b6f000006130113031302010000810000000b000900000673657276"
    "6572ff01000100000a00080006001d00170018003300260024001d0020e8e8e3"
    "f3b93a25ed97a14a7dcacb8a272c6288e585c6484d05262fcad062ad1f002b00"
    "03020304000d0020001e04030503060302030804080508060401050106010201"
    "0402050206020202002d00020101001c00024001";

/* 176 bytes */
static const char HRR_HRR[] =
    "020000ac0303cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e"
    "09e2c8a8339c001301000084003300020017002c0074007271dcd04bb88bc318"
    "9119398a00000000eefafc76c146b823b096f8aacad365dd0030953f4edf6256"
    "36e5f21bb2e23fcc654b1b5b40318d10d137abcbb87574e36e8a1f025f7dfa5d"
    "6e50781b5eda4aa15b0c8be778257d16aa3030e9e7841dd9e4c0342267e8ca0c"
    "af571fb2b7cff0f934b0002b00020304";

/* 512 bytes */
static const char HRR_CH2[] =
    "010001fc0303b0b1c5a5aa37c5919f2ed1d5c6fff7fcb7849716945a2b8cee92"
    "58a346677b6f000006130113031302010001cd0000000b000900000673657276"
    "6572ff01000100000a00080006001d001700180033004700450017004104a6da"
    "7392ec591e17abfd535964b99894d13befb221b3def2ebe3830eac8f01518126"
    "77c4d6d2237e85cf01d6910cfb83954e76ba7352830534159897e8065780002b"
    "0003020304000d0020001e040305030603020308040805080604010501060102"
    "010402050206020202002c0074007271dcd04bb88bc3189119398a00000000ee"
    "fafc76c146b823b096f8aacad365dd0030953f4edf625636e5f21bb2e23fcc65"
    "4b1b5b40318d10d137abcbb87574e36e8a1f025f7dfa5d6e50781b5eda4aa15b"
    "0c8be778257d16aa3030e9e7841dd9e4c0342267e8ca0caf571fb2b7cff0f934"
    "b0002d00020101001c00024001001500af000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000";

/* 123 bytes */
static const char HRR_SH[] =
    "020000770303bb341d847fd789c47c387172dc0c9bf147fccacb5043d86ca4c5"
    "98d3ff571b9800130100004f003300450017004104583e054b7a66672ae020ad"
    "9d2686fcc85b5ad41a134a0f03ee72b893052bd85b4c8de6776f5b04ac07d835"
    "40eab3e3d9c547bc6528c4317d294686093a6cad7d002b00020304";

/* 645 bytes */
static const char HRR_FLIGHT[] =
    "080000180016000a0008000600170018001d001c00024001000000000b0001b9"
    "000001b50001b0308201ac30820115a003020102020102300d06092a864886f7"
    "0d01010b0500300e310c300a06035504031303727361301e170d313630373330"
    "3031323335395a170d3236303733303031323335395a300e310c300a06035504"
    "03130372736130819f300d06092a864886f70d010101050003818d0030818902"
    "818100b4bb498f8279303d980836399b36c6988c0c68de55e1bdb826d3901a24"
    "61eafd2de49a91d015abbc9a95137ace6c1af19eaa6af98c7ced43120998e187"
    "a80ee0ccb0524b1b018c3e0b63264d449a6d38e22a5fda430846748030530ef0"
    "461c8ca9d9efbfae8ea6d1d03e2bd193eff0ab9a8002c47428a6d35a8d88d79f"
    "7f1e3f0203010001a31a301830090603551d1304023000300b0603551d0f0404"
    "030205a0300d06092a864886f70d01010b05000381810085aad2a0e5b9276b90"
    "8c65f73a7267170618a54c5f8a7b337d2df7a594365417f2eae8f8a58c8f8172"
    "f9319cf36b7fd6c55b80f21a03015156726096fd335e5e67f2dbf102702e608c"
    "cae6bec1fc63a42a99be5c3eb7107c3c54e9b9eb2bd5203b1c3b84e0a8b2f759"
    "409ba3eac9d91d402dcc0cc8f8961229ac9187b42b4de100000f000084080400"
    "8033ab13d4462707231b5dcae6c8190b63d1dabc74f28c395370da0b07e5b830"
    "66d0246a31acd95df475bfd799a4a70d33ad93d3a317a9b2c0d237a5685b219e"
    "774112e391a247607d1aeff1bbd0a39f382ee1a5fe88ae99ec59228e6497e45d"
    "48ce275a6d5ef40d169fb6f9d33b052ed3dcdd6b5a48baafffbcb290128415bd"
    "38140000208863e6bfb0420a927fa27f34336a70ae426e968e3eb884945b9685"
    "6dba3976d1";

/* 667 bytes */
static const char HRR_FLIGHT_REC[] =
    "170303029699bee20baf5b7fc727bfab6223928a381e6d0cf9c4da653f9d2a7b"
    "23f7de11cce842d5cf75631763450ffb8b0cc1d238e658af7a12adc86243114a"
    "b14a1da2fae42621ce483fb6242eabfaad52566b02b31d2eddedefeb80e66a99"
    "00d5f973b40c4fdf74719ecf1b68d7f9c3b6ceb903ca13dd1bb8f8187ae33417"
    "e1d152522c5822a1a03ad52c838c55953d610222874cce8e1790b229a2aa0b53"
    "c8d377ee720182951dc6181dc5d90bd1f0105ed1e84aa5f75957c6661897079e"
    "5ea5007449e3197bdc7c9beeedddeafdd844afa5c315ecfe65e576afe9098128"
    "80620ec7048b42d7f5c78d76f299d6d82534bdd8f512febc0ed3814aca470cd8"
    "000d3e1cb9962b052fbb950df683a52c2ba77ed3713b122937a6e5170964e2ab"
    "7969dcd980b3db9b458da7603124d6dc005e4d6e04b4d0c4baf3275db827dbba"
    "0a6db09672171fc057b3851d7e026841e2978fbd2346bbefdd0376bb1108fe9a"
    "cc92189f5650aa5e85d8e8c7b67ac510dba003d3d7e16350bb66d45013efd44c"
    "9b607c0d318c4c7d1a1f5cbc57e20611804e3787d7b4a4b5f08ed8fd70bdaead"
    "e02260b12ab842ef690b4a3ee7911e841b374ecd5ebbbc2a54d047b600336dd7"
    "d0c88b4bc10e58ee6cb656de7247fa20d8e91deb84628608cf80615b62e96c14"
    "91c7ac3755eb6901405d3474fe1ac79d106a0cee56c2577fc88480f96cb6b8c6"
    "81b7b68b53c146093908f350888175bdfb0b1e31ad61e30ba0adfe6d223aa03c"
    "0783b5001a57587c328a9afcfcfb978d1cd4328f7d9d60530e630befd96c0c81"
    "6ee20b0100768ae2a6df51fc68f172740a79af11398ee3be1252491fa9c69347"
    "9e877f94ab7c5f8cad480203e6ab7b87dd71e8a0729113df17f5eee86ce108d1"
    "d72007ec1cd13c85a6c149621e77b7d78d805a30f0be030c315e54";

/* 65 bytes */
static const char HRR_CPUB[] =
    "04a6da7392ec591e17abfd535964b99894d13befb221b3def2ebe3830eac8f01"
    "51812677c4d6d2237e85cf01d6910cfb83954e76ba7352830534159897e80657"
    "80";

/* 65 bytes */
static const char HRR_SPUB[] =
    "04583e054b7a66672ae020ad9d2686fcc85b5ad41a134a0f03ee72b893052bd8"
    "5b4c8de6776f5b04ac07d83540eab3e3d9c547bc6528c4317d294686093a6cad"
    "7d";

/*
 * Signatures by OpenSSL 3.0 over the server CertificateVerify content
 * for the transcript hash 00 01 .. 1f (130 bytes: 64 spaces, the
 * context string, 0, the hash), cv.bin:
 *   openssl dgst -sha256 -sigopt rsa_padding_mode:pss \
 *       -sigopt rsa_pss_saltlen:32 -sign key_rsa2048.pem cv.bin
 *   openssl dgst -sha384 -sigopt rsa_padding_mode:pss \
 *       -sigopt rsa_pss_saltlen:48 -sign key_rsa1025.pem cv.bin
 *   openssl dgst -sha256 -sign key_rsa2048.pem cv.bin    (PKCS#1 v1.5)
 *   openssl dgst -sha256 -sign key_p256.pem cv.bin
 *   openssl dgst -sha384 -sign key_p384.pem cv.bin
 *   openssl dgst -sha512 -sign key_p521.pem cv.bin
 *   openssl dgst -sha512 -sigopt rsa_padding_mode:pss \
 *       -sigopt rsa_pss_saltlen:64 -sign key_rsa2048.pem cv.bin
 */
static const char OSSL_PSS2048_SHA256[] =
    "74c00653fed02ca03359614d97d81f2554693f970f28e812e0130b6219221c5e"
    "1154e2724d041b1de349e6a661a4220b46c7a29d724267b71ae93ac80f146a56"
    "80ed2b7333ef3cb461a208d9a369db6072fcb4ee3e225113bda33fe01a5849a4"
    "2c6da8eb0dbc38a4c71bd746f047e42806635c1d85dfe6c49bc21a8a6d6d408e"
    "6ea6a9ad97e8e11eabc670f40550844f7388ea06577762100256dc6b71f1bc7e"
    "0fc985ac0a9138fe3ffeda9298fb96cac9d3a2590913bdff4f1d3939118b5eb6"
    "9e56388b6e39953655bef174114d916831e527a6f82f722fb6e29c82b98e4af0"
    "928a97b0137c3112e816a06276592bfa18eee8ee7ca72cd4ee37bbc1f87152d1";

static const char OSSL_PSS1025_SHA384[] =
    "017e2c7344b723fe00ba40275c6a433502d1802ad737c0fd3ed7ca05e85ebd0b"
    "b828efb0e14457b455afc508c2362c77015419b310fd47b27791201a50432944"
    "c711feb553b47cad794e5ac14ada0dab0664fad414fea166608d0079f13fc69c"
    "888075a9037749e731cec293ad28dffa6e9c83996b886c02aa10c655ed6f40b6"
    "9a";

static const char OSSL_PKCS1_2048_SHA256[] =
    "0b1ef2cfb711e73db92aaffd586151d38f7600677d7a7c312086161b5504071b"
    "8e498b997aac81f9d93bc776a017596cb7231f481ecf60ad21d8c87cb1b46d89"
    "db03eb0da2655c02fb6aa7bf89f6b35004ae2100877ba15871fa7cb6f9aaadb7"
    "d2cd2ebf61df3cc886793f9f59939b0ba47b235a0f1dffe1087c6caa1c9d6b2d"
    "11f25979d948ee5834ee4a01baba9af7934931ccb63b4c117043aee10e05c86c"
    "b99d163c534125fb123df4ee7ef86fec7ca615eaf3933bf68951a9ec137eca35"
    "b0099b0195fb83cd325aa4fd9261389af6bd814524fe0216d5733951cfe5ce93"
    "532796b21e676bf2f8ca5d03b9cc6ccf8738453686aa7f113009080b3961278e";

static const char OSSL_ECDSA_P256_SHA256[] =
    "3046022100f96d37f681a87098fe2da10558a9f7b18d6363137a517c1fa5b7f5"
    "828b3bef92022100cef5f8cf0294f824565ff8a9c2304076f2174d0490234298"
    "cb3f2a10812099fa";

static const char OSSL_ECDSA_P384_SHA384[] =
    "30650231008b920987b3b7f18639d3d54730a6145de294651a8732a9a6803d31"
    "6b355164fc9ea6e3ff2c6c27106149744193a9e29d02307ea6f40d9f062e7074"
    "eea0bf43ffa99e97bc09ba91a5f520bb612670a277810ada8770111f1ce11bcb"
    "5d56e7d826a9bf";

static const char OSSL_ECDSA_P521_SHA512[] =
    "308188024200b033b9aee6df1a46c92afcaee9028f0e167d8c950c22136003e3"
    "2ddb10fbffd57e6a6e624ee18f6867f4ee3c16b739fa0425f661d957f49246b0"
    "2cf4c7b4388266024200e8a96bb13e171d9e7a9361cc41cba825200fdc8f7af1"
    "4d4d8aab3db0e6ebb4f656fd3c9cc9ee35d23190def44b8ebfeb110a5dbf650b"
    "76b19b9a6ec3e1ed191e51";

static const char OSSL_PSS2048_SHA512[] =
    "040ccbaf491448e6242453d525914155b564ded4a064acbb90da46d140675d3c"
    "9d777b109c0d1d43486c2e3d38fd73f1b6b2647f4d7586d19d6688f7ed8e06a8"
    "3907278a5491782232fbebe76078716ed7d6b3a13fcbb738950fe29ee53ff864"
    "e366225284c4b7dc32f0bae38ecebcf8fd86b9808e6050b23a9555b63e790af6"
    "216e39d91d442e9dcd46981ebc6b2db25f0c90e78460e58418606cc6ad077570"
    "2972f02c3d54b89bde17ac1956fc69af7542cdb783025ebc1af9946f10ef13e2"
    "ab616c1d7ce5debc8dc292f4262cb8bcd7a474d8e4baf3d19d81e8996cea49fe"
    "60042cedcefedc575f718881f524e66ac9081f5f1cddd4ca0ce79e757b3b3adc";

/*
 * Records by tests/unit/tlscrypto_vectors.py: the content "hello, TLS
 * 1.3" at sequence number 0 as application data without padding, and
 * at 1 as a handshake record with 5 bytes of padding, under the traffic
 * secrets 00 01 .. 2f (AES-256-GCM / SHA-384) and 40 41 .. 5f
 * (ChaCha20-Poly1305 / SHA-256); then each secret's KeyUpdate successor.
 */
static const char MSG[] = "hello, TLS 1.3";
static const char GCM256_REC0[] =
    "170303001f205213507a2196d1dd9775d7d16963167ee979963b2ebfd8704d57"
    "fcadba80";
static const char GCM256_REC1[] =
    "1703030024f574159cab622d7d180ffaea867e3b90d3c9ff33d1d5e8362ca4d0"
    "a899bc10cf883fbc04";
static const char CHAPOL_REC0[] =
    "170303001f92accb7cd489042426c491c7795cc0b0287b8326f6da3c35f6821f"
    "7c598ce0";
static const char CHAPOL_REC1[] =
    "1703030024161803981936d750838c25d6dafa33416588f22745b2f4d1571f63"
    "2bc4a13bea5394fc55";
static const char NEXT_S384[] =
    "401331b63e9d59f202e8f041042d9516f4cd7fa2e2ee14631d3b49fc340d7af3"
    "7fc2c0c9f252d8036f81ec5b85cbe5db";
static const char NEXT_S256[] =
    "e8fc7f681aa59e59a6da531ad5b59f2b7ed21605445b04dcbe4727655950a3cf";

static unsigned char buf[RP_CIPHER_MAX + 64];

/* 1 if the `len` bytes at `b` are exactly the hex `s`. */
/*
 * A record padded as a peer may pad it (RFC 8446 5.4), pad zeros after
 * the type: rp_seal() pads none, so the type and all but the last zero
 * go in as content, and rp_seal() appends that zero as the "type".
 */
static size_t
seal_pad(struct rp *r, unsigned char *rec, size_t len, size_t cap,
    int type, size_t pad)
{
	if (pad == 0)
		return rp_seal(r, rec, len, cap, type);
	rec[5 + len] = (unsigned char)type;
	memset(rec + 6 + len, 0, pad - 1);
	return rp_seal(r, rec, len + pad, cap, 0);
}

static int
is_hex(const unsigned char *b, size_t len, const char *s)
{
	static unsigned char t[4096];

	return unit_unhex(t, sizeof(t), s) == len && memcmp(t, b, len) == 0;
}

static void
sha256(const void *a, size_t alen, const void *b, size_t blen,
    unsigned char *out)
{
	br_sha256_context h;

	br_sha256_init(&h);
	br_sha256_update(&h, a, alen);
	br_sha256_update(&h, b, blen);
	br_sha256_out(&h, out);
}

/*
 * The RFC 8448 section 3 schedule up to a given point, for the tests
 * that start further on.  th_* are the transcript hashes through
 * ServerHello, the server Finished and the client Finished.
 */
static struct rfc {
	struct ks	ks;
	unsigned char	shared[32], c_hs[32], s_hs[32], c_ap[32], s_ap[32];
	unsigned char	th_sh[32], th_sfin[32], th_cfin[32], res[32];
	unsigned char	ch[196], sh[90], flight[657], cfin[36];
} R;

static int
rfc_run(void)
{
	static const char sk[] =
	    "b1580eeadf6dd589b8ef4f2d5652578cc810e9980191ec8d058308cea216a21e";
	static const char cpub[] =
	    "99381de560e4bd43d23d8e435a7dbafeb3c06e51c13cae4d5413691e529aaf2c";
	unsigned char k[32], peer[32], pub[32];
	struct th t;
	struct kx kx;

	if (unit_unhex(R.ch, sizeof(R.ch), CH) != 196 ||
	    unit_unhex(R.sh, sizeof(R.sh), SH) != 90 ||
	    unit_unhex(R.flight, sizeof(R.flight), FLIGHT) != 657 ||
	    unit_unhex(k, 32, sk) != 32 || unit_unhex(peer, 32, cpub) != 32)
		return 0;
	/* Client Finished: header, then the client's verify_data. */
	memcpy(R.cfin, "\x14\x00\x00\x20", 4);
	if (kx_load(&kx, GROUP_X25519, k, 32, pub, sizeof(pub)) != 32 ||
	    kx_shared(&kx, peer, 32, R.shared) != 32)
		return 0;
	th_init(&t, &br_sha256_vtable);
	th_add(&t, R.ch, sizeof(R.ch));
	th_add(&t, R.sh, sizeof(R.sh));
	th_hash(&t, R.th_sh);
	ks_early(&R.ks, &br_sha256_vtable, NULL, 0);
	ks_handshake(&R.ks, R.shared, 32);
	ks_derive(&R.ks, "c hs traffic", R.th_sh, R.c_hs);
	ks_derive(&R.ks, "s hs traffic", R.th_sh, R.s_hs);
	th_add(&t, R.flight, sizeof(R.flight));
	th_hash(&t, R.th_sfin);
	ks_finished(&br_sha256_vtable, R.c_hs, R.th_sfin, R.cfin + 4);
	th_add(&t, R.cfin, sizeof(R.cfin));
	th_hash(&t, R.th_cfin);
	ks_handshake(&R.ks, NULL, 0);
	ks_derive(&R.ks, "c ap traffic", R.th_sfin, R.c_ap);
	ks_derive(&R.ks, "s ap traffic", R.th_sfin, R.s_ap);
	ks_derive(&R.ks, "res master", R.th_cfin, R.res);
	kx_wipe(&kx);
	return 1;
}

static int
rfc8448_x25519_share_and_shared_secret(void)
{
	static const char sk[] =
	    "b1580eeadf6dd589b8ef4f2d5652578cc810e9980191ec8d058308cea216a21e";
	unsigned char k[32], pub[KX_PUB_MAX];
	struct kx kx;

	CHECK(unit_unhex(k, 32, sk) == 32);
	CHECK(kx_load(&kx, GROUP_X25519, k, 32, pub, sizeof(pub)) == 32);
	CHECK(is_hex(pub, 32,
	    "c9828876112095fe66762bdbf7c672e156d6cc253b833df1dd69b1b04e751f0f"));
	CHECK(rfc_run());
	CHECK(is_hex(R.shared, 32,
	    "8bd4054fb55b9d63fdfbacf9f04b9f0d35e6d63f537563efd46272900f89492d"));
	kx_wipe(&kx);
	CHECK(kx.group == 0 && kx.sk[0] == 0 && kx.sk[31] == 0);
	return 1;
}

static int
rfc8448_early_secret_and_derived(void)
{
	unsigned char empty[32], derived[32];
	struct ks ks;

	ks_early(&ks, &br_sha256_vtable, NULL, 0);
	CHECK(ks.hlen == 32);
	CHECK(is_hex(ks.secret, 32,
	    "33ad0a1c607ec03b09e6cd9893680ce210adf300aa1f2660e1b22e10f170f92a"));
	sha256("", 0, "", 0, empty);
	ks_derive(&ks, "derived", empty, derived);
	CHECK(is_hex(derived, 32,
	    "6f2615a108c702c5678f54fc9dbab69716c076189c48250cebeac3576c3611ba"));
	ks_wipe(&ks);
	CHECK(ks.secret[0] == 0 && ks.dig == NULL);
	return 1;
}

static int
rfc8448_handshake_secrets_keys_and_ivs(void)
{
	unsigned char key[16], iv[12];
	struct ks ks;

	CHECK(rfc_run());
	CHECK(is_hex(R.th_sh, 32,
	    "860c06edc07858ee8e78f0e7428c58edd6b43f2ca3e6e95f02ed063cf0e1cad8"));
	ks_early(&ks, &br_sha256_vtable, NULL, 0);
	ks_handshake(&ks, R.shared, 32);
	CHECK(is_hex(ks.secret, 32,
	    "1dc826e93606aa6fdc0aadc12f741b01046aa6b99f691ed221a9f0ca043fbeac"));
	CHECK(is_hex(R.c_hs, 32,
	    "b3eddb126e067f35a780b3abf45e2d8f3b1a950738f52e9600746a0e27a55a21"));
	CHECK(is_hex(R.s_hs, 32,
	    "b67b7d690cc16c4e75e54213cb2d37b4e9c912bcded9105d42befd59d391ad38"));
	ks_traffic_keys(&br_sha256_vtable, R.s_hs, key, 16, iv);
	CHECK(is_hex(key, 16, "3fce516009c21727d0f2e4e86ee403bc"));
	CHECK(is_hex(iv, 12, "5d313eb2671276ee13000b30"));
	ks_traffic_keys(&br_sha256_vtable, R.c_hs, key, 16, iv);
	CHECK(is_hex(key, 16, "dbfaa693d1762c5b666af5d950258d01"));
	CHECK(is_hex(iv, 12, "5bd3c71b836e0b76bb73265f"));
	return 1;
}

/* The server Finished is the last 32 bytes of the RFC's flight. */
static int
rfc8448_server_finished_verify_data(void)
{
	struct th t;
	unsigned char th[32], vd[32];

	CHECK(rfc_run());
	th_init(&t, &br_sha256_vtable);
	th_add(&t, R.ch, sizeof(R.ch));
	th_add(&t, R.sh, sizeof(R.sh));
	th_add(&t, R.flight, sizeof(R.flight) - 36);
	CHECK(th_hash(&t, th) == 32);
	ks_finished(&br_sha256_vtable, R.s_hs, th, vd);
	CHECK(is_hex(vd, 32,
	    "9b9b141d906337fbd2cbdce71df4deda4ab42c309572cb7fffee5454b78f0718"));
	CHECK(memcmp(vd, R.flight + sizeof(R.flight) - 32, 32) == 0);
	return 1;
}

static int
rfc8448_master_and_application_secrets(void)
{
	unsigned char key[16], iv[12];

	CHECK(rfc_run());
	CHECK(is_hex(R.ks.secret, 32,
	    "18df06843d13a08bf2a449844c5f8a478001bc4d4c627984d5a41da8d0402919"));
	CHECK(is_hex(R.c_ap, 32,
	    "9e40646ce79a7f9dc05af8889bce6552875afa0b06df0087f792ebb7c17504a5"));
	CHECK(is_hex(R.s_ap, 32,
	    "a11af9f05531f856ad47116b45a950328204b4f44bfb6b3a4b4f1f3fcb631643"));
	ks_traffic_keys(&br_sha256_vtable, R.s_ap, key, 16, iv);
	CHECK(is_hex(key, 16, "9f02283b6c9c07efc26bb9f2ac92e356"));
	CHECK(is_hex(iv, 12, "cf782b88dd83549aadf1e984"));
	ks_traffic_keys(&br_sha256_vtable, R.c_ap, key, 16, iv);
	CHECK(is_hex(key, 16, "17422dda596ed5d9acd890e3c63f5051"));
	CHECK(is_hex(iv, 12, "5b78923dee08579033e523d9"));
	return 1;
}

static int
rfc8448_client_finished_resumption_master_and_ticket_psk(void)
{
	unsigned char psk[32];

	CHECK(rfc_run());
	CHECK(is_hex(R.cfin + 4, 32,
	    "a8ec436d677634ae525ac1fcebe11a039ec17694fac6e98527b642f2edd5ce61"));
	CHECK(is_hex(R.th_cfin, 32,
	    "209145a96ee8e2a122ff810047cc952684658d6049e86429426db87c54ad143d"));
	CHECK(is_hex(R.res, 32,
	    "7df235f2031d2a051287d02b0241b0bfdaf86cc856231f2d5aba46c434ec196c"));
	ks_ticket_psk(&br_sha256_vtable, R.res, "\0\0", 2, psk);
	CHECK(is_hex(psk, 32,
	    "4ecd0eb6ec3b4d87f5d6028f922ca4c5851a277fd41311c9e62d2c9492e1c4f3"));
	return 1;
}

static int
rfc8448_server_flight_seals_to_the_rfc_record(void)
{
	static struct rp r;
	size_t n;

	CHECK(rfc_run());
	CHECK(rp_init(&r, SUITE_AES_128_GCM_SHA256, R.s_hs));
	memcpy(buf + 5, R.flight, sizeof(R.flight));
	n = rp_seal(&r, buf, sizeof(R.flight), sizeof(buf), 22);
	CHECK(n == 679);
	CHECK(is_hex(buf, n, FLIGHT_REC));
	CHECK(r.seq == 1);
	rp_wipe(&r);
	return 1;
}

static int
rfc8448_client_finished_record_opens(void)
{
	static struct rp r;
	size_t n = unit_unhex(buf, sizeof(buf), FIN_REC), len = 0;

	CHECK(rfc_run());
	CHECK(n == 58);
	CHECK(rp_init(&r, SUITE_AES_128_GCM_SHA256, R.c_hs));
	CHECK(rp_open(&r, buf, n, &len) == 22);
	CHECK(len == 36 && memcmp(buf + 5, R.cfin, 36) == 0);
	return 1;
}

/*
 * The server's application keys at work: the ticket (seq 0), 50 bytes
 * of data (seq 1), close_notify (seq 2); the client's data and
 * close_notify sealed to the RFC's records.
 */
static int
rfc8448_application_records_in_sequence(void)
{
	static struct rp in, out;
	unsigned char app[50];
	size_t n, len = 0;

	CHECK(rfc_run());
	for (int i = 0; i < 50; i++)
		app[i] = (unsigned char)i;
	CHECK(rp_init(&in, SUITE_AES_128_GCM_SHA256, R.s_ap));
	n = unit_unhex(buf, sizeof(buf), SERVER_APP_REC);
	CHECK(rp_open(&in, buf, n, &len) == RP_ERR_MAC);
	n = unit_unhex(buf, sizeof(buf), TICKET_REC);
	CHECK(rp_open(&in, buf, n, &len) == 22);
	CHECK(len == 205 && buf[5] == 4);	/* NewSessionTicket */
	n = unit_unhex(buf, sizeof(buf), SERVER_APP_REC);
	CHECK(rp_open(&in, buf, n, &len) == 23);
	CHECK(len == 50 && memcmp(buf + 5, app, 50) == 0);
	n = unit_unhex(buf, sizeof(buf), SERVER_ALERT_REC);
	CHECK(rp_open(&in, buf, n, &len) == 21);
	CHECK(len == 2 && buf[5] == 1 && buf[6] == 0);

	CHECK(rp_init(&out, SUITE_AES_128_GCM_SHA256, R.c_ap));
	memcpy(buf + 5, app, 50);
	n = rp_seal(&out, buf, 50, sizeof(buf), 23);
	CHECK(is_hex(buf, n, CLIENT_APP_REC));
	memcpy(buf + 5, "\x01\x00", 2);
	n = rp_seal(&out, buf, 2, sizeof(buf), 21);
	CHECK(is_hex(buf, n, CLIENT_ALERT_REC));
	return 1;
}

/* RFC 8448 section 4: the early secret from the ticket's PSK, binder. */
static int
rfc8448_resumption_binder(void)
{
	static unsigned char ch[477];
	unsigned char psk[32], empty[32], bk[32], th[32], binder[32];
	struct th t;
	struct ks ks;

	CHECK(unit_unhex(psk, 32,
	    "4ecd0eb6ec3b4d87f5d6028f922ca4c5851a277fd41311c9e62d2c9492e1c4f3")
	    == 32);
	ks_early(&ks, &br_sha256_vtable, psk, 32);
	CHECK(is_hex(ks.secret, 32,
	    "9b2188e9b2fc6d64d71dc329900e20bb41915000f678aa839cbb797cb7d8332c"));
	ks_derive(&ks, "res binder", NULL, bk);
	CHECK(is_hex(bk, 32,
	    "69fe131a3bbad5d63c64eebcc30e395b9d8107726a13d074e389dbc8a4e47256"));
	sha256("", 0, "", 0, empty);
	ks_derive(&ks, "res binder", empty, th);
	CHECK(memcmp(th, bk, 32) == 0);
	CHECK(unit_unhex(ch, sizeof(ch), PSK_CH_PREFIX) == 477);
	th_init(&t, &br_sha256_vtable);
	th_add(&t, ch, sizeof(ch));
	th_hash(&t, th);
	CHECK(is_hex(th, 32,
	    "63224b2e4573f2d3454ca84b9d009a04f6be9e05711a8396473aefa01e924a14"));
	ks_finished(&br_sha256_vtable, bk, th, binder);
	CHECK(is_hex(binder, 32,
	    "3add4fb2d8fdf822a0ca3cf7678ef5e88dae990141c5924d57bb6fa31b9e5f9d"));
	return 1;
}

/*
 * RFC 8448 section 5: X25519 refused, P-256 asked for.  The transcript
 * starts with message_hash in place of ClientHello1; P-256 shares from
 * the RFC's private key; the server's flight sealed to the RFC's record.
 */
static int
rfc8448_hello_retry_request_with_p256(void)
{
	static unsigned char ch1[180], hrr[176], ch2[512], sh[123], fl[645];
	static struct rp r;
	unsigned char sk[32], pub[65], cpub[65], dhe[32], th[32], c[32], s[32];
	unsigned char key[16], iv[12];
	struct th t;
	struct kx kx;
	struct ks ks;

	CHECK(unit_unhex(ch1, sizeof(ch1), HRR_CH1) == sizeof(ch1));
	CHECK(unit_unhex(hrr, sizeof(hrr), HRR_HRR) == sizeof(hrr));
	CHECK(unit_unhex(ch2, sizeof(ch2), HRR_CH2) == sizeof(ch2));
	CHECK(unit_unhex(sh, sizeof(sh), HRR_SH) == sizeof(sh));
	CHECK(unit_unhex(fl, sizeof(fl), HRR_FLIGHT) == sizeof(fl));
	CHECK(unit_unhex(sk, 32,
	    "8c510601f9765bfb8ed693449a48989859b5cfa879cb9f5443c41c5ff10634ed")
	    == 32);
	CHECK(kx_load(&kx, GROUP_SECP256R1, sk, 32, pub, sizeof(pub)) == 65);
	CHECK(is_hex(pub, 65, HRR_SPUB));
	CHECK(unit_unhex(cpub, 65, HRR_CPUB) == 65);
	CHECK(kx_shared(&kx, cpub, 65, dhe) == 32);
	CHECK(is_hex(dhe, 32,
	    "c142ce13ca11b5c2233652e63ad3d97844f1621fbfb9de69d547dc8fedeabeb4"));

	th_init(&t, &br_sha256_vtable);
	th_add(&t, ch1, sizeof(ch1));
	th_hrr(&t);
	th_add(&t, hrr, sizeof(hrr));
	th_add(&t, ch2, sizeof(ch2));
	th_add(&t, sh, sizeof(sh));
	th_hash(&t, th);
	CHECK(is_hex(th, 32,
	    "8aa8e828ec2f8a884fec95a3139de01c15a3daa7ff5bfc3f4bfcc21b438d7bf8"));
	ks_early(&ks, &br_sha256_vtable, NULL, 0);
	ks_handshake(&ks, dhe, 32);
	CHECK(is_hex(ks.secret, 32,
	    "ce022e5e6e81e50736d773f2d3adfce8220d049bf510f0dbfac927ef4243b148"));
	ks_derive(&ks, "c hs traffic", th, c);
	ks_derive(&ks, "s hs traffic", th, s);
	CHECK(is_hex(c, 32,
	    "158aa7ab8855073582b41d674b4055cabcc534728f659314861b4e08e2011566"));
	CHECK(is_hex(s, 32,
	    "3403e781e2af7b6508da28574f6e95a1abf162de83a97927c37672a4a0cef8a1"));
	ks_traffic_keys(&br_sha256_vtable, s, key, 16, iv);
	CHECK(is_hex(key, 16, "4646bfac1712c426cd78d8a24a8a6f6b"));
	CHECK(is_hex(iv, 12, "c7d395c08d62f297d13768ea"));
	CHECK(rp_init(&r, SUITE_AES_128_GCM_SHA256, s));
	memcpy(buf + 5, fl, sizeof(fl));
	CHECK(is_hex(buf, rp_seal(&r, buf, sizeof(fl), sizeof(buf), 22),
	    HRR_FLIGHT_REC));

	th_add(&t, fl, sizeof(fl));
	th_hash(&t, th);
	CHECK(is_hex(th, 32,
	    "50f63cbf36b0dd049e7a0ba27d6455745ea2aaac54bb167f9950b2b7ce9509da"));
	ks_handshake(&ks, NULL, 0);
	CHECK(is_hex(ks.secret, 32,
	    "1131545d0baf79ddce9b87f06945781a57dd18ef378dcd2060f8f9a569027ed8"));
	ks_derive(&ks, "c ap traffic", th, c);
	ks_derive(&ks, "s ap traffic", th, s);
	CHECK(is_hex(c, 32,
	    "75ecf4b972525aa0dcd057c9944d4cd5d82671d8843141d7dc2a4ff15a21dc51"));
	CHECK(is_hex(s, 32,
	    "5c74f87df04225db0f8209c9de6429e49435fdefa7cad61864874d12f31cfc8d"));
	return 1;
}

static int
transcript_hash_leaves_the_running_hash_alone(void)
{
	struct th t;
	unsigned char a[32], b[32], want[32];

	th_init(&t, &br_sha256_vtable);
	th_add(&t, "abc", 3);
	th_hash(&t, a);
	th_hash(&t, b);
	CHECK(memcmp(a, b, 32) == 0);
	sha256("abc", 3, "", 0, want);
	CHECK(memcmp(a, want, 32) == 0);
	th_add(&t, "def", 3);
	th_hash(&t, a);
	sha256("abc", 3, "def", 3, want);
	CHECK(memcmp(a, want, 32) == 0);
	return 1;
}

/* 4.4.1: Hash(message_hash || 00 00 Hash.length || Hash(CH1) || HRR ..). */
static int
hrr_replaces_client_hello1_by_message_hash(void)
{
	struct th t;
	unsigned char m[4 + 48], got[48], want[48];
	br_sha384_context h;

	CHECK(rfc_run());
	th_init(&t, &br_sha384_vtable);
	th_add(&t, R.ch, sizeof(R.ch));
	th_hrr(&t);
	th_add(&t, R.sh, sizeof(R.sh));
	CHECK(th_hash(&t, got) == 48);

	memcpy(m, "\xfe\x00\x00\x30", 4);
	br_sha384_init(&h);
	br_sha384_update(&h, R.ch, sizeof(R.ch));
	br_sha384_out(&h, m + 4);
	br_sha384_init(&h);
	br_sha384_update(&h, m, sizeof(m));
	br_sha384_update(&h, R.sh, sizeof(R.sh));
	br_sha384_out(&h, want);
	CHECK(memcmp(got, want, 48) == 0);
	return 1;
}

static int
key_update_secrets_match_python(void)
{
	unsigned char s[48];

	for (int i = 0; i < 48; i++)
		s[i] = (unsigned char)i;
	ks_next_secret(&br_sha384_vtable, s);
	CHECK(is_hex(s, 48, NEXT_S384));
	for (int i = 0; i < 32; i++)
		s[i] = (unsigned char)(0x40 + i);
	ks_next_secret(&br_sha256_vtable, s);
	CHECK(is_hex(s, 32, NEXT_S256));
	return 1;
}

static void
secret_for(int suite, unsigned char *s)
{
	for (int i = 0; i < 48; i++)
		s[i] = (unsigned char)(suite == SUITE_AES_256_GCM_SHA384 ?
		    i : 0x40 + i);
}

/* Seal and open against the Python-made records of one suite. */
static int
records_match(int suite, const char *rec0, const char *rec1)
{
	static struct rp out, in;
	unsigned char s[48];
	size_t n, len = 0, mlen = strlen(MSG);

	secret_for(suite, s);
	CHECK(rp_init(&out, suite, s) && rp_init(&in, suite, s));
	memcpy(buf + 5, MSG, mlen);
	n = rp_seal(&out, buf, mlen, sizeof(buf), 23);
	CHECK(is_hex(buf, n, rec0));
	CHECK(rp_open(&in, buf, n, &len) == 23);
	CHECK(len == mlen && memcmp(buf + 5, MSG, mlen) == 0);
	memcpy(buf + 5, MSG, mlen);
	n = seal_pad(&out, buf, mlen, sizeof(buf), 22, 5);
	CHECK(is_hex(buf, n, rec1));
	CHECK(rp_open(&in, buf, n, &len) == 22);
	CHECK(len == mlen && memcmp(buf + 5, MSG, mlen) == 0);
	return 1;
}

static int
aes256gcm_sha384_records_match_python(void)
{
	return records_match(SUITE_AES_256_GCM_SHA384, GCM256_REC0, GCM256_REC1);
}

static int
chacha20_poly1305_records_match_python(void)
{
	return records_match(SUITE_CHACHA20_POLY1305_SHA256, CHAPOL_REC0,
	    CHAPOL_REC1);
}

static int
unknown_suite_is_refused(void)
{
	static struct rp r;
	unsigned char s[48] = { 0 };

	CHECK(!rp_init(&r, 0x1304, s));
	CHECK(!rp_init(&r, 0xc02f, s));
	CHECK(ks_suite_hash(0x1305) == NULL);
	return 1;
}

/*
 * A flipped bit anywhere the AEAD covers (header, ciphertext, tag) is
 * bad_record_mac, the plaintext is not left behind, and the sequence
 * number is not used up: the intact record still opens after.
 */
static int
tampered_records_do_not_open(void)
{
	static const int suites[] = { SUITE_AES_128_GCM_SHA256,
	    SUITE_AES_256_GCM_SHA384, SUITE_CHACHA20_POLY1305_SHA256 };
	static struct rp out, in;
	static unsigned char good[64];
	static const size_t at[] = { 0, 2, 4, 5, 12, 19, 20, 35 };
	unsigned char s[48];
	size_t n, len;

	for (size_t i = 0; i < 3; i++) {
		secret_for(suites[i], s);
		CHECK(rp_init(&out, suites[i], s));
		CHECK(rp_init(&in, suites[i], s));
		memcpy(buf + 5, MSG, 14);
		n = rp_seal(&out, buf, 14, sizeof(buf), 23);
		CHECK(n == 36);
		memcpy(good, buf, n);
		for (size_t j = 0; j < sizeof(at) / sizeof(at[0]); j++) {
			memcpy(buf, good, n);
			buf[at[j]] ^= 0x01;
			CHECK(rp_open(&in, buf, n, &len) == RP_ERR_MAC);
			CHECK(memcmp(buf + 5, MSG, 14) != 0);
		}
		memcpy(buf, good, n);
		buf[n - 1] ^= 0x80;		/* the tag's last bit */
		CHECK(rp_open(&in, buf, n, &len) == RP_ERR_MAC);
		memcpy(buf, good, n);
		CHECK(rp_open(&in, buf, n - 1, &len) == RP_ERR_MAC);
		CHECK(in.seq == 0);
		memcpy(buf, good, n);
		CHECK(rp_open(&in, buf, n, &len) == 23 && len == 14);
		CHECK(in.seq == 1);
	}
	return 1;
}

static int
padding_is_stripped_and_zeros_in_content_kept(void)
{
	static struct rp out, in;
	unsigned char s[48];
	size_t n, len = 0;

	secret_for(SUITE_AES_256_GCM_SHA384, s);
	CHECK(rp_init(&out, SUITE_AES_256_GCM_SHA384, s));
	CHECK(rp_init(&in, SUITE_AES_256_GCM_SHA384, s));
	memcpy(buf + 5, "ab\0\0", 4);
	n = seal_pad(&out, buf, 4, sizeof(buf), 23, 300);
	CHECK(n == 5 + 4 + 1 + 300 + 16);
	CHECK(buf[3] == 0x01 && buf[4] == 0x41);
	CHECK(rp_open(&in, buf, n, &len) == 23);
	CHECK(len == 4 && memcmp(buf + 5, "ab\0\0", 4) == 0);
	/* Content of zero bytes: the type alone. */
	n = rp_seal(&out, buf, 0, sizeof(buf), 22);
	CHECK(n == 22);
	CHECK(rp_open(&in, buf, n, &len) == 22 && len == 0);
	return 1;
}

/*
 * The type is found wherever it falls against the 8-byte words the
 * padding scan reads: every content length and padding length around a
 * few word boundaries, content bytes zero or not, the tail word short.
 */
static int
padding_is_stripped_at_every_word_offset(void)
{
	static struct rp out, in;
	unsigned char s[48];
	size_t n, len = 0;

	secret_for(SUITE_AES_128_GCM_SHA256, s);
	CHECK(rp_init(&out, SUITE_AES_128_GCM_SHA256, s));
	CHECK(rp_init(&in, SUITE_AES_128_GCM_SHA256, s));
	for (size_t c = 0; c < 26; c++)
		for (size_t pad = 0; pad < 26; pad++) {
			for (size_t j = 0; j < c; j++)	/* zeros too */
				buf[5 + j] = (unsigned char)(j % 3 == 0 ? 0 :
				    j + 1);
			n = seal_pad(&out, buf, c, sizeof(buf),
			    21 + (int)(c % 3), pad);
			CHECK(n == 5 + c + 1 + pad + RP_TAG_LEN);
			CHECK(rp_open(&in, buf, n, &len) == 21 + (int)(c % 3));
			CHECK(len == c);
			for (size_t j = 0; j < c; j++)
				CHECK(buf[5 + j] == (j % 3 == 0 ? 0 : j + 1));
		}
	return 1;
}

/* Type 0 with padding only: no content type at all (5.4). */
static int
all_zero_plaintext_is_refused(void)
{
	static struct rp out, in;
	unsigned char s[48];
	size_t n, len = 0;

	secret_for(SUITE_CHACHA20_POLY1305_SHA256, s);
	CHECK(rp_init(&out, SUITE_CHACHA20_POLY1305_SHA256, s));
	CHECK(rp_init(&in, SUITE_CHACHA20_POLY1305_SHA256, s));
	memset(buf + 5, 0, 10);
	n = seal_pad(&out, buf, 10, sizeof(buf), 0, 7);
	CHECK(n == 5 + 18 + 16);
	CHECK(rp_open(&in, buf, n, &len) == RP_ERR_EMPTY);
	return 1;
}

/* The same content sealed twice differs; out of order does not open. */
static int
sequence_number_changes_the_nonce(void)
{
	static struct rp out, in;
	static unsigned char r0[64], r1[64];
	unsigned char s[48];
	size_t n0, n1, len;

	secret_for(SUITE_AES_256_GCM_SHA384, s);
	CHECK(rp_init(&out, SUITE_AES_256_GCM_SHA384, s));
	CHECK(rp_init(&in, SUITE_AES_256_GCM_SHA384, s));
	memcpy(r0 + 5, MSG, 14);
	n0 = rp_seal(&out, r0, 14, sizeof(r0), 23);
	memcpy(r1 + 5, MSG, 14);
	n1 = rp_seal(&out, r1, 14, sizeof(r1), 23);
	CHECK(n0 == n1 && memcmp(r0, r1, 5) == 0);
	CHECK(memcmp(r0 + 5, r1 + 5, n0 - 5) != 0);
	/* Opening decrypts in place: each try gets a fresh copy. */
	memcpy(buf, r1, n1);
	CHECK(rp_open(&in, buf, n1, &len) == RP_ERR_MAC);
	memcpy(buf, r0, n0);
	CHECK(rp_open(&in, buf, n0, &len) == 23);
	memcpy(buf, r1, n1);
	CHECK(rp_open(&in, buf, n1, &len) == 23);
	memcpy(buf, r0, n0);
	CHECK(rp_open(&in, buf, n0, &len) == RP_ERR_MAC);
	return 1;
}

static int
sequence_number_never_wraps(void)
{
	static struct rp out, in;
	unsigned char s[48];
	size_t n, len;

	secret_for(SUITE_AES_256_GCM_SHA384, s);
	CHECK(rp_init(&out, SUITE_AES_256_GCM_SHA384, s));
	CHECK(rp_init(&in, SUITE_AES_256_GCM_SHA384, s));
	out.seq = in.seq = UINT64_MAX - 1;
	n = rp_seal(&out, buf, 3, sizeof(buf), 23);
	CHECK(n == 25 && out.seq == UINT64_MAX);
	CHECK(rp_seal(&out, buf + 100, 3, sizeof(buf) - 100, 23) == 0);
	CHECK(rp_open(&in, buf, n, &len) == 23 && len == 3);
	CHECK(rp_open(&in, buf, n, &len) == RP_ERR_SEQ);
	return 1;
}

static int
record_size_limits(void)
{
	static struct rp out, in;
	unsigned char s[48];
	size_t n, len;

	secret_for(SUITE_AES_256_GCM_SHA384, s);
	CHECK(rp_init(&out, SUITE_AES_256_GCM_SHA384, s));
	CHECK(rp_init(&in, SUITE_AES_256_GCM_SHA384, s));
	memset(buf + 5, 'x', RP_PLAIN_MAX);
	CHECK(rp_seal(&out, buf, RP_PLAIN_MAX + 1, sizeof(buf), 23) == 0);
	CHECK(rp_seal(&out, buf, 100, 100 + 21, 23) == 0);
	CHECK(rp_seal(&out, buf, 0, 4, 23) == 0);
	CHECK(out.seq == 0);
	n = rp_seal(&out, buf, 100, 100 + 22, 23);
	CHECK(n == 122);
	n = rp_seal(&out, buf, RP_PLAIN_MAX, sizeof(buf), 23);
	CHECK(n == RP_PLAIN_MAX + RP_OVERHEAD13);
	CHECK(rp_open(&in, buf, 122, &len) == RP_ERR_MAC);
	CHECK(rp_open(&in, buf, 5 + RP_CIPHER_MAX + 1, &len) ==
	    RP_ERR_OVERFLOW);
	CHECK(rp_open(&in, buf, 21, &len) == RP_ERR_MAC);
	CHECK(rp_open(&in, buf, 3, &len) == RP_ERR_MAC);
	return 1;
}

static br_hmac_drbg_context rng;

static void
rng_init(void)
{
	br_hmac_drbg_init(&rng, &br_sha256_vtable, "tlscrypto test", 14);
}

/* Each group's share and shared secret lengths; P-384, P-521: 1.2's. */
static int
ecdhe_shares_agree(void)
{
	static const struct {
		int	group;
		size_t	pub, shared;
	} g[] = {
		{ GROUP_X25519, 32, 32 }, { GROUP_SECP256R1, 65, 32 },
		{ GROUP_SECP384R1, 97, 48 }, { GROUP_SECP521R1, 133, 66 },
	};
	unsigned char pa[KX_PUB_MAX], pb[KX_PUB_MAX];
	unsigned char sa[KX_SHARED_MAX], sb[KX_SHARED_MAX];
	struct kx a, b;
	size_t la, lb;

	rng_init();
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		la = kx_gen(&a, g[i].group, &rng.vtable, pa, sizeof(pa));
		lb = kx_gen(&b, g[i].group, &rng.vtable, pb, sizeof(pb));
		CHECK(la == g[i].pub && lb == la);
		CHECK(memcmp(pa, pb, la) != 0);
		CHECK(kx_shared(&a, pb, lb, sa) == g[i].shared);
		CHECK(kx_shared(&b, pa, la, sb) == g[i].shared);
		CHECK(memcmp(sa, sb, g[i].shared) == 0);
		CHECK(kx_gen(&a, g[i].group, &rng.vtable, pa,
		    g[i].pub - 1) == 0);
	}
	CHECK(kx_gen(&a, 0x001e, &rng.vtable, pa, sizeof(pa)) == 0);
	return 1;
}

/* RFC 7748 6.1 / RFC 8446 7.4.2: low-order points give zero: refused. */
static int
x25519_refuses_small_order_and_bad_lengths(void)
{
	static const char *bad[] = {
	    "0000000000000000000000000000000000000000000000000000000000000000",
	    "0100000000000000000000000000000000000000000000000000000000000000",
	    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
	    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	};
	unsigned char p[33], pub[32], s[32];
	struct kx kx;

	rng_init();
	CHECK(kx_gen(&kx, GROUP_X25519, &rng.vtable, pub, sizeof(pub)) == 32);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(unit_unhex(p, 32, bad[i]) == 32);
		CHECK(kx_shared(&kx, p, 32, s) == 0);
	}
	memcpy(p, pub, 32);
	CHECK(kx_shared(&kx, p, 32, s) == 32);
	CHECK(kx_shared(&kx, p, 31, s) == 0);
	CHECK(kx_shared(&kx, p, 33, s) == 0);
	return 1;
}

static int
p256_refuses_points_off_the_curve_and_other_forms(void)
{
	unsigned char pa[65], pb[65], p[65], s[32];
	struct kx a, b;

	rng_init();
	CHECK(kx_gen(&a, GROUP_SECP256R1, &rng.vtable, pa, 65) == 65);
	CHECK(kx_gen(&b, GROUP_SECP256R1, &rng.vtable, pb, 65) == 65);
	CHECK(pb[0] == 4);
	memcpy(p, pb, 65);
	p[64] ^= 1;			/* y no longer matches x */
	CHECK(kx_shared(&a, p, 65, s) == 0);
	memcpy(p, pb, 65);
	p[0] = 2;			/* compressed form is not offered */
	CHECK(kx_shared(&a, p, 65, s) == 0);
	CHECK(kx_shared(&a, p, 33, s) == 0);
	memset(p, 0, 65);
	p[0] = 4;
	CHECK(kx_shared(&a, p, 65, s) == 0);
	CHECK(kx_shared(&a, pb, 64, s) == 0);
	CHECK(kx_shared(&a, pb, 65, s) == 32);
	/* An X25519 share is not a P-256 one. */
	CHECK(kx_shared(&a, pb + 1, 32, s) == 0);
	return 1;
}

/* The keys: decoded once, with their public halves. */
static struct key {
	br_skey_decoder_context	d;
	br_x509_pkey		pk;
	unsigned char		pub[BR_EC_KBUF_PUB_MAX_SIZE + 4];
	unsigned char		n[512], e[3];
} K[5];

static struct key *
key(int i)
{
	static unsigned char b[2048];
	struct key *k = &K[i];
	size_t n = unit_unhex(b, sizeof(b), key_der[i]);

	br_skey_decoder_init(&k->d);
	br_skey_decoder_push(&k->d, b, n);
	if (n == 0 || br_skey_decoder_last_error(&k->d) != 0)
		return NULL;
	if (br_skey_decoder_key_type(&k->d) == BR_KEYTYPE_RSA) {
		/* openssl genpkey's exponent (BearSSL's compute_pubexp
		 * gives up on the 1025-bit key's uneven primes). */
		k->pk.key_type = BR_KEYTYPE_RSA;
		k->pk.key.rsa.n = k->n;
		k->pk.key.rsa.nlen = br_rsa_compute_modulus_get_default()(k->n,
		    br_skey_decoder_get_rsa(&k->d));
		memcpy(k->e, "\x01\x00\x01", 3);
		k->pk.key.rsa.e = k->e;
		k->pk.key.rsa.elen = 3;
		return k;
	}
	k->pk.key_type = BR_KEYTYPE_EC;
	if (br_ec_compute_pub(br_ec_get_default(), &k->pk.key.ec, k->pub,
	    br_skey_decoder_get_ec(&k->d)) == 0)
		return NULL;
	return k;
}

static void
cv_thash(unsigned char *th)
{
	for (int i = 0; i < 32; i++)
		th[i] = (unsigned char)i;
}

static int
openssl_rsa_pss_signatures_verify(void)
{
	unsigned char th[32], sig[256];
	struct key *k2 = key(0), *k1 = key(1);
	size_t n;

	CHECK(k2 != NULL && k1 != NULL);
	CHECK(k2->pk.key.rsa.nlen == 256 && k1->pk.key.rsa.nlen == 129);
	cv_thash(th);
	n = unit_unhex(sig, sizeof(sig), OSSL_PSS2048_SHA256);
	CHECK(n == 256);
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA256, 1, th, 32, &k2->pk, sig,
	    n) == 1);
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA256, 0, th, 32, &k2->pk, sig,
	    n) == 0);
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA384, 1, th, 32, &k2->pk, sig,
	    n) == 0);
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA512, 1, th, 32, &k2->pk, sig,
	    n) == 0);
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA256, 1, th, 31, &k2->pk, sig,
	    n) == 0);
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA256, 1, th, 32, &k1->pk, sig,
	    n) == 0);
	sig[100] ^= 0x10;
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA256, 1, th, 32, &k2->pk, sig,
	    n) == 0);
	/* 1025 bits: the encoded message is one byte shorter than n. */
	n = unit_unhex(sig, sizeof(sig), OSSL_PSS1025_SHA384);
	CHECK(n == 129);
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA384, 1, th, 32, &k1->pk, sig,
	    n) == 1);
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA384, 1, th, 32, &k1->pk, sig,
	    n - 1) == 0);
	n = unit_unhex(sig, sizeof(sig), OSSL_PSS2048_SHA512);
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA512, 1, th, 32, &k2->pk, sig,
	    n) == 1);
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA256, 1, th, 32, &k2->pk, sig,
	    n) == 0);
	return 1;
}

/* TLS 1.3 forbids PKCS#1 v1.5 in CertificateVerify (4.4.3). */
static int
pkcs1_v15_signature_is_refused(void)
{
	unsigned char th[32], sig[256];
	struct key *k = key(0);
	size_t n = unit_unhex(sig, sizeof(sig), OSSL_PKCS1_2048_SHA256);

	CHECK(k != NULL && n == 256);
	cv_thash(th);
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA256, 1, th, 32, &k->pk, sig,
	    n) == 0);
	CHECK(sig_cv_verify(SIG_ECDSA_SECP256R1_SHA256, 1, th, 32, &k->pk, sig,
	    n) == 0);
	return 1;
}

static int
openssl_ecdsa_signatures_verify_with_the_curve_bound(void)
{
	unsigned char th[32], sig[160];
	struct key *k256 = key(2), *k384 = key(3);
	size_t n;

	CHECK(k256 != NULL && k384 != NULL);
	cv_thash(th);
	n = unit_unhex(sig, sizeof(sig), OSSL_ECDSA_P256_SHA256);
	CHECK(n >= 70);
	CHECK(sig_cv_verify(SIG_ECDSA_SECP256R1_SHA256, 1, th, 32, &k256->pk,
	    sig, n) == 1);
	CHECK(sig_cv_verify(SIG_ECDSA_SECP256R1_SHA256, 0, th, 32, &k256->pk,
	    sig, n) == 0);
	CHECK(sig_cv_verify(SIG_ECDSA_SECP384R1_SHA384, 1, th, 32, &k256->pk,
	    sig, n) == 0);
	CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA256, 1, th, 32, &k256->pk,
	    sig, n) == 0);
	sig[n - 1] ^= 1;
	CHECK(sig_cv_verify(SIG_ECDSA_SECP256R1_SHA256, 1, th, 32, &k256->pk,
	    sig, n) == 0);
	n = unit_unhex(sig, sizeof(sig), OSSL_ECDSA_P384_SHA384);
	CHECK(sig_cv_verify(SIG_ECDSA_SECP384R1_SHA384, 1, th, 32, &k384->pk,
	    sig, n) == 1);
	CHECK(sig_cv_verify(SIG_ECDSA_SECP256R1_SHA256, 1, th, 32, &k384->pk,
	    sig, n) == 0);
	n = unit_unhex(sig, sizeof(sig), OSSL_ECDSA_P521_SHA512);
	CHECK(key(4) != NULL && n > 130);
	CHECK(sig_cv_verify(SIG_ECDSA_SECP521R1_SHA512, 1, th, 32, &K[4].pk,
	    sig, n) == 1);
	CHECK(sig_cv_verify(SIG_ECDSA_SECP384R1_SHA384, 1, th, 32, &K[4].pk,
	    sig, n) == 0);
	return 1;
}

static int
save(const char *name, const void *data, size_t len)
{
	char path[64];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "build/unit/cv_%s", name);
	if ((f = fopen(path, "wb")) == NULL)
		return 0;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok;
}

/*
 * Our signatures verify here, are refused once altered, and go to
 * build/unit/ with the content they sign (cv.bin) for OpenSSL.
 */
static int
our_signatures_verify_here_and_are_saved_for_openssl(void)
{
	static const struct {
		int		key, scheme;
		size_t		len;
		const char	*file;
	} s[] = {
		{ 0, SIG_RSA_PSS_RSAE_SHA256, 256, "pss2048.sig" },
		{ 1, SIG_RSA_PSS_RSAE_SHA384, 129, "pss1025.sig" },
		{ 2, SIG_ECDSA_SECP256R1_SHA256, 0, "p256.sig" },
		{ 3, SIG_ECDSA_SECP384R1_SHA384, 0, "p384.sig" },
		{ 4, SIG_ECDSA_SECP521R1_SHA512, 0, "p521.sig" },
		{ 0, SIG_RSA_PSS_RSAE_SHA512, 256, "pss2048-512.sig" },
	};
	unsigned char th[32], cv[130], sig[SIG_LEN_MAX], sig2[SIG_LEN_MAX];
	size_t n;

	cv_thash(th);
	memset(cv, ' ', 64);
	memcpy(cv + 64, "TLS 1.3, server CertificateVerify", 34);
	memcpy(cv + 98, th, 32);
	CHECK(save("cv.bin", cv, sizeof(cv)));
	rng_init();
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		struct key *k = key(s[i].key);
		const br_ec_private_key *ec = NULL;
		const br_rsa_private_key *rsa = NULL;

		CHECK(k != NULL);
		if (k->pk.key_type == BR_KEYTYPE_EC)
			ec = br_skey_decoder_get_ec(&k->d);
		else
			rsa = br_skey_decoder_get_rsa(&k->d);
		n = sig_cv_sign(s[i].scheme, 1, th, 32, ec, rsa, &rng.vtable,
		    sig, sizeof(sig));
		CHECK(n > 0 && (s[i].len == 0 || n == s[i].len));
		CHECK(sig_cv_verify(s[i].scheme, 1, th, 32, &k->pk, sig, n));
		CHECK(save(s[i].file, sig, n));
		/* PSS is randomised; ECDSA (RFC 6979) is not. */
		CHECK(sig_cv_sign(s[i].scheme, 1, th, 32, ec, rsa, &rng.vtable,
		    sig2, sizeof(sig2)) == n);
		CHECK((memcmp(sig, sig2, n) == 0) == (ec != NULL));
		sig[n / 2] ^= 4;
		CHECK(!sig_cv_verify(s[i].scheme, 1, th, 32, &k->pk, sig, n));
		CHECK(sig_cv_sign(s[i].scheme, 1, th, 32, ec, rsa, &rng.vtable,
		    sig, 100) == 0);
	}
	return 1;
}

static int
signing_refuses_a_key_that_does_not_fit_the_scheme(void)
{
	unsigned char th[32], sig[SIG_LEN_MAX];
	struct key *r = key(0), *e = key(2);
	const br_ec_private_key *ec;
	const br_rsa_private_key *rsa;

	CHECK(r != NULL && e != NULL);
	ec = br_skey_decoder_get_ec(&e->d);
	rsa = br_skey_decoder_get_rsa(&r->d);
	cv_thash(th);
	rng_init();
	CHECK(sig_cv_sign(SIG_ECDSA_SECP384R1_SHA384, 1, th, 32, ec, NULL,
	    &rng.vtable, sig, sizeof(sig)) == 0);
	CHECK(sig_cv_sign(SIG_ECDSA_SECP256R1_SHA256, 1, th, 32, NULL, rsa,
	    &rng.vtable, sig, sizeof(sig)) == 0);
	CHECK(sig_cv_sign(SIG_RSA_PSS_RSAE_SHA256, 1, th, 32, ec, NULL,
	    &rng.vtable, sig, sizeof(sig)) == 0);
	CHECK(sig_cv_sign(0x0401, 1, th, 32, ec, rsa, &rng.vtable, sig,
	    sizeof(sig)) == 0);
	CHECK(sig_cv_sign(0x0807, 1, th, 32, ec, rsa, &rng.vtable, sig,
	    sizeof(sig)) == 0);
	return 1;
}

/*
 * EMSA-PSS-ENCODE written again here, with one flaw to choose, and the
 * raw private-key operation: sig_pss_verify() must take the well-formed
 * encoding and refuse each flawed one.
 */
enum { PSS_OK, PSS_LEAD, PSS_TOPBIT, PSS_SEPARATOR, PSS_PADDING, PSS_TRAILER };

static size_t
pss_raw(const br_rsa_private_key *sk, const unsigned char *mh,
    unsigned salt0, int flaw, unsigned char *x)
{
	br_sha256_context h;
	unsigned char salt[32], hh[32], m[32], c[4] = { 0 };
	size_t k = (sk->n_bitlen + 7) / 8, embits = sk->n_bitlen - 1;
	size_t emlen = (embits + 7) / 8, dblen = emlen - 33;
	unsigned char *em = x + (k - emlen);

	memset(salt, (int)salt0, 32);
	br_sha256_init(&h);
	br_sha256_update(&h, "\0\0\0\0\0\0\0\0", 8);
	br_sha256_update(&h, mh, 32);
	br_sha256_update(&h, salt, 32);
	br_sha256_out(&h, hh);
	memset(x, 0, k);
	em[dblen - 33] = flaw == PSS_SEPARATOR ? 0 : 1;
	if (flaw == PSS_PADDING)
		em[dblen - 40] = 1;
	memcpy(em + dblen - 32, salt, 32);
	for (size_t u = 0; u < dblen; u += 32) {
		br_sha256_init(&h);
		br_sha256_update(&h, hh, 32);
		br_sha256_update(&h, c, 4);
		br_sha256_out(&h, m);
		for (size_t v = 0; v < 32 && u + v < dblen; v++)
			em[u + v] ^= m[v];
		c[3]++;
	}
	em[0] &= (unsigned char)(0xFF >> (8 * emlen - embits));
	if (flaw == PSS_TOPBIT)
		em[0] |= 0x80;
	if (flaw == PSS_LEAD)
		x[0] = 1;
	memcpy(em + dblen, hh, 32);
	em[emlen - 1] = flaw == PSS_TRAILER ? 0xBB : 0xBC;
	return k;
}

/* 1 if the (flawed) encoding is below the modulus, so it can be signed. */
static int
pss_sign_raw(struct key *key, const unsigned char *mh, int flaw,
    unsigned char *sig, size_t *len)
{
	const br_rsa_private_key *sk = br_skey_decoder_get_rsa(&key->d);

	for (unsigned s = 0; s < 256; s++) {
		*len = pss_raw(sk, mh, s, flaw, sig);
		if (memcmp(sig, key->n, *len) < 0)
			return br_rsa_private_get_default()(sig, sk) == 1;
	}
	return 0;
}

static int
pss_verify_refuses_malformed_encodings(void)
{
	unsigned char th[32], mh[32], sig[256];
	size_t n;

	cv_thash(th);
	CHECK(sig_cv_hash(SIG_RSA_PSS_RSAE_SHA256, 1, th, 32, mh) == 32);
	for (int i = 0; i < 2; i++) {
		struct key *k = key(i);

		CHECK(k != NULL);
		CHECK(pss_sign_raw(k, mh, PSS_OK, sig, &n));
		CHECK(sig_pss_verify(&br_sha256_vtable, &k->pk.key.rsa, mh, sig,
		    n) == 1);
		CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA256, 1, th, 32, &k->pk,
		    sig, n) == 1);
		for (int flaw = PSS_TOPBIT; flaw <= PSS_TRAILER; flaw++) {
			if (flaw == PSS_TOPBIT && i == 1)
				continue;	/* emBits = 8 emLen */
			CHECK(pss_sign_raw(k, mh, flaw, sig, &n));
			CHECK(sig_pss_verify(&br_sha256_vtable, &k->pk.key.rsa,
			    mh, sig, n) == 0);
		}
	}
	/* 1025 bits: a non-zero byte before EM. */
	CHECK(pss_sign_raw(key(1), mh, PSS_LEAD, sig, &n));
	CHECK(sig_pss_verify(&br_sha256_vtable, &K[1].pk.key.rsa, mh, sig,
	    n) == 0);
	return 1;
}

/*
 * 1025 bits: emBits = 8 emLen, so no bit of maskedDB may be cleared;
 * sixteen salts make it unlikely that a wrong mask goes unseen.
 */
static int
pss_signs_with_a_1025_bit_key_for_any_salt(void)
{
	unsigned char th[32], sig[SIG_LEN_MAX];
	struct key *k = key(1);
	size_t n;

	CHECK(k != NULL);
	cv_thash(th);
	rng_init();
	for (int i = 0; i < 16; i++) {
		th[0] = (unsigned char)i;
		n = sig_cv_sign(SIG_RSA_PSS_RSAE_SHA256, 1, th, 32, NULL,
		    br_skey_decoder_get_rsa(&k->d), &rng.vtable, sig,
		    sizeof(sig));
		CHECK(n == 129);
		CHECK(sig_cv_verify(SIG_RSA_PSS_RSAE_SHA256, 1, th, 32, &k->pk,
		    sig, n) == 1);
	}
	return 1;
}

/* A valid ECDSA signature with a hash the curve is not bound to. */
static int
ecdsa_verify_binds_the_curve_to_the_hash(void)
{
	unsigned char th[32], h[48], sig[160];
	struct key *k = key(2);
	size_t n;

	CHECK(k != NULL);
	cv_thash(th);
	CHECK(sig_cv_hash(SIG_ECDSA_SECP384R1_SHA384, 1, th, 32, h) == 48);
	n = br_ecdsa_i31_sign_asn1(br_ec_get_default(), &br_sha384_vtable, h,
	    br_skey_decoder_get_ec(&k->d), sig);
	CHECK(n > 0);
	CHECK(br_ecdsa_i31_vrfy_asn1(br_ec_get_default(), h, 48,
	    &k->pk.key.ec, sig, n) == 1);
	CHECK(sig_cv_verify(SIG_ECDSA_SECP384R1_SHA384, 1, th, 32, &k->pk, sig,
	    n) == 0);
	return 1;
}

/*
 * An inner plaintext of 2^14 + 1 bytes opens, one more is
 * record_overflow (5.4), and its plaintext is not left behind.  Our
 * seal never makes one, so this one is sealed by hand at sequence 0.
 */
static int
inner_plaintext_over_the_limit_is_overflow(void)
{
	static struct rp r;
	unsigned char s[48];
	size_t len;

	secret_for(SUITE_AES_256_GCM_SHA384, s);
	for (size_t n = RP_PLAIN_MAX + 1; n <= RP_PLAIN_MAX + 2; n++) {
		CHECK(rp_init(&r, SUITE_AES_256_GCM_SHA384, s));
		memset(buf + 5, 'y', n);
		memcpy(buf, "\x17\x03\x03", 3);
		buf[3] = (unsigned char)((n + 16) >> 8);
		buf[4] = (unsigned char)(n + 16);
		br_gcm_reset(&r.gcm, r.iv, 12);
		br_gcm_aad_inject(&r.gcm, buf, 5);
		br_gcm_flip(&r.gcm);
		br_gcm_run(&r.gcm, 1, buf + 5, n);
		br_gcm_get_tag(&r.gcm, buf + 5 + n);
		if (n == RP_PLAIN_MAX + 1) {
			CHECK(rp_open(&r, buf, 5 + n + 16, &len) == 'y');
			CHECK(len == RP_PLAIN_MAX);
		} else {
			CHECK(rp_open(&r, buf, 5 + n + 16, &len) ==
			    RP_ERR_OVERFLOW);
			CHECK(buf[5] == 0 && buf[5 + n - 1] == 0);
		}
	}
	return 1;
}

/*
 * TLS 1.2 records (RFC 5246 6.2.3.3) by tlscrypto_vectors.py, Python's
 * cryptography package: "hello, TLS 1.2" at sequence number 0 as a
 * handshake record and at 1 as application data, under the key 80 81
 * .. and the salt or IV e0 e1 .. of each AEAD.
 */
static const char MSG12[] = "hello, TLS 1.2";
static const char GCM128_12_REC0[] =
    "160303002600000000000000003e78fbe226da616b75dd4d703946feb51fa02d"
    "547c5c6ab962d2b2a65d47";
static const char GCM128_12_REC1[] =
    "1703030026000000000000000145867dc461d61422d183782c04e4fcb1f146ea"
    "a73bf5336541c2f5d1140a";
static const char GCM256_12_REC0[] =
    "16030300260000000000000000775b2acbf3c08bd3b5baa5e4fbe8f01453c923"
    "f7a63780f998eaf9e78a97";
static const char GCM256_12_REC1[] =
    "170303002600000000000000018afc5505029da8e7ae9a36df3dbf1896951e61"
    "7801ff036de4da1f6ecba6";
static const char CHAPOL_12_REC0[] =
    "160303001ebc9206075596d645f5f6e957cee7c7586e07d8e51e6fc3f5c085eb"
    "457901";
static const char CHAPOL_12_REC1[] =
    "170303001ee0b28a97da3094b86a2be90384f823ad583b705f39c0821ca7bd14"
    "43dacb";

static const int aeads12[] = { SUITE_AES_128_GCM_SHA256,
    SUITE_AES_256_GCM_SHA384, SUITE_CHACHA20_POLY1305_SHA256 };

/* The key and salt / IV of the vectors above, for one AEAD. */
static int
init12(struct rp *r, int aead)
{
	unsigned char key[32], iv[12];

	for (int i = 0; i < 32; i++)
		key[i] = (unsigned char)(0x80 + i);
	for (int i = 0; i < 12; i++)
		iv[i] = (unsigned char)(0xe0 + i);
	return rp_init12(r, aead, key, iv);
}

/* Seal msg[0..n) as type into buf: the record's length. */
static size_t
seal12(struct rp *r, const void *msg, size_t n, int type)
{
	memcpy(buf + rp_head12(r), msg, n);
	return rp_seal12(r, buf, n, sizeof(buf), type);
}

static int
tls12_records_match_python(int aead, const char *rec0, const char *rec1)
{
	static struct rp out, in;
	size_t n, len = 0, mlen = strlen(MSG12);

	CHECK(init12(&out, aead) && init12(&in, aead));
	n = seal12(&out, MSG12, mlen, 22);
	CHECK(is_hex(buf, n, rec0));
	CHECK(rp_open12(&in, buf, n, &len) == 22);
	CHECK(len == mlen && memcmp(buf + rp_head12(&in), MSG12, mlen) == 0);
	n = seal12(&out, MSG12, mlen, 23);
	CHECK(is_hex(buf, n, rec1));
	CHECK(rp_open12(&in, buf, n, &len) == 23);
	CHECK(len == mlen && memcmp(buf + rp_head12(&in), MSG12, mlen) == 0);
	return 1;
}

static int
tls12_aes128gcm_records_match_python(void)
{
	return tls12_records_match_python(SUITE_AES_128_GCM_SHA256,
	    GCM128_12_REC0, GCM128_12_REC1);
}

static int
tls12_aes256gcm_records_match_python(void)
{
	return tls12_records_match_python(SUITE_AES_256_GCM_SHA384,
	    GCM256_12_REC0, GCM256_12_REC1);
}

static int
tls12_chacha20_poly1305_records_match_python(void)
{
	return tls12_records_match_python(SUITE_CHACHA20_POLY1305_SHA256,
	    CHAPOL_12_REC0, CHAPOL_12_REC1);
}

/*
 * Each AEAD: records of every size class seal and open in sequence,
 * with the header's type and the lengths RP_EXTRA12 says.
 */
static int
tls12_records_round_trip_for_each_aead(void)
{
	static const size_t sizes[] = { 0, 1, 15, 16, 17, 1000,
	    RP_PLAIN_MAX };
	static struct rp out, in;
	static unsigned char msg[RP_PLAIN_MAX];
	size_t n, len, x;

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)(i * 7);
	for (size_t a = 0; a < 3; a++) {
		x = aeads12[a] == SUITE_CHACHA20_POLY1305_SHA256 ? 0 : 8;
		CHECK(init12(&out, aeads12[a]) && init12(&in, aeads12[a]));
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			n = seal12(&out, msg, sizes[i], 23 - (int)(i % 3));
			CHECK(n == 5 + x + sizes[i] + RP_TAG_LEN);
			CHECK(n - 5 <= sizes[i] + RP_EXTRA12);
			CHECK(buf[0] == 23 - i % 3 && buf[1] == 3 && buf[2] == 3);
			CHECK((size_t)(buf[3] << 8 | buf[4]) == n - 5);
			CHECK(rp_open12(&in, buf, n, &len) ==
			    23 - (int)(i % 3));
			CHECK(len == sizes[i] && memcmp(buf + 5 + x, msg, len) == 0);
		}
		CHECK(out.seq == 7 && in.seq == 7);
		/* Too long, or too little room: nothing written. */
		memcpy(buf + 5 + x, msg, 16);
		CHECK(rp_seal12(&out, buf, RP_PLAIN_MAX + 1, sizeof(buf),
		    23) == 0);
		CHECK(rp_seal12(&out, buf, 16, 5 + x + 16 + 15, 23) == 0);
		CHECK(out.seq == 7);
	}
	return 1;
}

/*
 * A flipped bit anywhere the AEAD covers (the header's type through the
 * AAD, GCM's explicit nonce through the nonce, the ciphertext, the tag)
 * is bad_record_mac and uses no sequence number up.  The header's
 * version and length are not read here: the record layer checks them
 * against 3.3 and the record's size before it opens one.
 */
static int
tls12_flipped_bit_is_refused(void)
{
	static struct rp out, in;
	static unsigned char good[64];
	size_t n, len;

	for (size_t a = 0; a < 3; a++) {
		CHECK(init12(&out, aeads12[a]) && init12(&in, aeads12[a]));
		n = seal12(&out, MSG12, 14, 23);
		memcpy(good, buf, n);
		for (size_t bit = 0; bit < 8 * n; bit++) {
			if (bit >= 8 && bit < 40)	/* version, length */
				continue;
			memcpy(buf, good, n);
			buf[bit / 8] ^= (unsigned char)(1 << bit % 8);
			CHECK(rp_open12(&in, buf, n, &len) == RP_ERR_MAC);
			CHECK(memcmp(buf + 5, MSG12, 14) != 0 &&
			    memcmp(buf + 13, MSG12, 14) != 0);
		}
		CHECK(in.seq == 0);
		memcpy(buf, good, n);
		CHECK(rp_open12(&in, buf, n - 1, &len) == RP_ERR_MAC);
		memcpy(buf, good, n);
		CHECK(rp_open12(&in, buf, n, &len) == 23 && len == 14);
		CHECK(in.seq == 1);
	}
	return 1;
}

/* RFC 5288 3: GCM's explicit nonce, as tlsgate sends it, is the seq. */
static int
tls12_gcm_explicit_nonce_is_the_sequence_number(void)
{
	static struct rp out;
	unsigned char want[8];
	size_t n;

	CHECK(init12(&out, SUITE_AES_256_GCM_SHA384));
	out.seq = 0x0102030405060708;
	for (int i = 0; i < 3; i++) {
		n = seal12(&out, MSG12, 14, 23);
		CHECK(n == 5 + 8 + 14 + 16);
		for (int j = 0; j < 8; j++)
			want[j] = (unsigned char)((0x0102030405060708 + i) >>
			    (56 - 8 * j));
		CHECK(memcmp(buf + 5, want, 8) == 0);
	}
	/* ChaCha20-Poly1305 has none (RFC 7905 2). */
	CHECK(init12(&out, SUITE_CHACHA20_POLY1305_SHA256));
	CHECK(seal12(&out, MSG12, 14, 23) == 5 + 14 + 16);
	return 1;
}

/*
 * RFC 5288 3: the explicit nonce is the sender's to choose.  A record
 * sealed here with another explicit nonce (and the same sequence number
 * in the AAD) opens; the nonce is not checked against the sequence.
 */
static int
tls12_gcm_open_takes_the_peers_explicit_nonce(void)
{
	static const unsigned char xn[8] = { 0xde, 0xad, 0xbe, 0xef, 0, 1, 2,
	    3 };
	static struct rp in;
	unsigned char key[16], nonce[12], aad[13];
	br_aes_ct_ctr_keys ak;
	br_gcm_context g;
	size_t len;

	for (int i = 0; i < 16; i++)
		key[i] = (unsigned char)(0x80 + i);
	for (int i = 0; i < 4; i++)
		nonce[i] = (unsigned char)(0xe0 + i);
	memcpy(nonce + 4, xn, 8);
	memset(aad, 0, 8);			/* sequence number 0 */
	memcpy(aad + 8, "\x17\x03\x03\x00\x0e", 5);
	memcpy(buf, "\x17\x03\x03\x00\x26", 5);
	memcpy(buf + 5, xn, 8);
	memcpy(buf + 13, MSG12, 14);
	br_aes_ct_ctr_init(&ak, key, 16);
	br_gcm_init(&g, &ak.vtable, br_ghash_ctmul);
	br_gcm_reset(&g, nonce, 12);
	br_gcm_aad_inject(&g, aad, 13);
	br_gcm_flip(&g);
	br_gcm_run(&g, 1, buf + 13, 14);
	br_gcm_get_tag(&g, buf + 27);
	CHECK(init12(&in, SUITE_AES_128_GCM_SHA256));
	CHECK(rp_open12(&in, buf, 43, &len) == 23);
	CHECK(len == 14 && memcmp(buf + 13, MSG12, 14) == 0);
	CHECK(in.seq == 1);
	return 1;
}

/*
 * A full record of each AEAD, both versions, sealed under the
 * implementations in use into out[] (a 1.2 GCM, 1.2 ChaCha20, 1.3 GCM
 * and 1.3 ChaCha20 record, RECLEN bytes a slot); each opens again.  A
 * full record takes every block path of the implementations that work
 * on several blocks at once, which the short vectors above do not.
 */
#define RECLEN	(5 + 8 + RP_PLAIN_MAX + RP_TAG_LEN)
static int
full_records(unsigned char (*out)[RECLEN])
{
	static struct rp w, r;
	static const int aead[2] = { SUITE_AES_128_GCM_SHA256,
	    SUITE_CHACHA20_POLY1305_SHA256 };
	unsigned char s[48];
	size_t n, len, h;

	for (int i = 0; i < 4; i++) {
		if (i < 2) {
			CHECK(init12(&w, aead[i]) && init12(&r, aead[i]));
			h = rp_head12(&w);
		} else {
			secret_for(aead[i - 2], s);
			CHECK(rp_init(&w, aead[i - 2], s) &&
			    rp_init(&r, aead[i - 2], s));
			h = 5;
		}
		for (size_t j = 0; j < RP_PLAIN_MAX; j++)
			buf[h + j] = (unsigned char)(j * 13 + i);
		n = i < 2 ? rp_seal12(&w, buf, RP_PLAIN_MAX, sizeof(buf), 23) :
		    rp_seal(&w, buf, RP_PLAIN_MAX - 1, sizeof(buf), 23);
		CHECK(n > 0 && n <= RECLEN);
		memset(out[i], 0, RECLEN);
		memcpy(out[i], buf, n);
		CHECK((i < 2 ? rp_open12(&r, buf, n, &len) :
		    rp_open(&r, buf, n, &len)) == 23);
		CHECK(len == (i < 2 ? RP_PLAIN_MAX : RP_PLAIN_MAX - 1));
		for (size_t j = 0; j < len; j++)
			CHECK(buf[h + j] == (unsigned char)(j * 13 + i));
	}
	return 1;
}

/* A symmetric candidate at work: the vectors, and full records as want. */
static int
candidate_gives_the_same_bytes(unsigned char (*want)[RECLEN])
{
	static unsigned char got[4][RECLEN];

	CHECK(rfc8448_server_flight_seals_to_the_rfc_record());
	CHECK(rfc8448_application_records_in_sequence());
	CHECK(aes256gcm_sha384_records_match_python());
	CHECK(chacha20_poly1305_records_match_python());
	CHECK(tls12_aes128gcm_records_match_python());
	CHECK(tls12_aes256gcm_records_match_python());
	CHECK(tls12_chacha20_poly1305_records_match_python());
	CHECK(full_records(got));
	CHECK(memcmp(got, want, sizeof(got)) == 0);
	return 1;
}

/* The EC candidate in use gives what BearSSL's all_m31 does. */
static int
ec_candidate_gives_the_same_bytes(int curve)
{
	const br_ec_impl *ref = &br_ec_all_m31, *ec = prim_get()->ec;
	unsigned char x[32], y[32], a[65], b[65], c[65];
	const unsigned char *g;
	size_t n, glen;

	for (int i = 0; i < 32; i++) {
		x[i] = (unsigned char)(0x11 * i + 1);
		y[i] = (unsigned char)(0x07 * i + 3);
	}
	x[0] = y[0] = 0x5a;		/* below P-256's order */
	n = ec->mulgen(a, x, 32, curve);
	CHECK(n > 0 && n == ref->mulgen(b, x, 32, curve));
	CHECK(memcmp(a, b, n) == 0);
	g = ec->generator(curve, &glen);
	CHECK(glen == n);
	memcpy(c, g, glen);
	CHECK(ec->mul(a, n, y, 32, curve) == 1);
	CHECK(ref->mul(b, n, y, 32, curve) == 1);
	CHECK(memcmp(a, b, n) == 0);
	if (curve == BR_EC_secp256r1) {		/* ECDSA verifies with it */
		CHECK(ec->muladd(a, c, n, x, 32, y, 32, curve) == 1);
		CHECK(ref->muladd(b, c, n, x, 32, y, 32, curve) == 1);
		CHECK(memcmp(a, b, n) == 0);
	}
	return 1;
}

/*
 * prim.c may choose any constant-time implementation BearSSL has for
 * the CPU: forced in turn, each gives the same bytes (the vectors pass,
 * full records equal those under BearSSL's defaults) and is the one in
 * use.  Each kind has at least two candidates on any CPU (the portable
 * ones), so a forcing that did nothing would fail here.
 */
static int
every_primitive_candidate_gives_the_same_bytes(void)
{
	static unsigned char want[4][RECLEN];
	struct prim def = *prim_get();
	size_t tried, choices = 0;
	int rc;
	char d[160];

	CHECK(full_records(want));
	for (int k = 0; k < PRIM_KINDS; k++) {
		tried = 0;
		for (size_t i = 0; (rc = prim_pin(k, i)) >= 0; i++) {
			if (rc == 0)
				continue;
			tried++;
			CHECK(prim_get()->pick[k] == i);
			if (k == PRIM_EC) {
				CHECK(ec_candidate_gives_the_same_bytes(
				    BR_EC_curve25519) &&
				    rfc8448_x25519_share_and_shared_secret() &&
				    ecdhe_shares_agree());
				CHECK(ec_candidate_gives_the_same_bytes(
				    BR_EC_secp256r1) && ecdhe_shares_agree());
				CHECK(rfc8448_hello_retry_request_with_p256());
				CHECK(
				openssl_ecdsa_signatures_verify_with_the_curve_bound());
			}
			else
				CHECK(candidate_gives_the_same_bytes(want));
		}
		/* ChaCha20 has one candidate where SSE2 is missing. */
		CHECK(tried >= 1);
		choices += tried > 1;
		CHECK(prim_pin(k, def.pick[k]) == 1);
	}
	CHECK(choices >= 3);
	CHECK(prim_pin(PRIM_CHACHA20, 1) == 1 &&
	    prim_get()->chacha == &br_chacha20_ct_run);
	CHECK(prim_pin(PRIM_AES_CTR, 3) == 1 &&
	    prim_get()->ctr == &br_aes_ct_ctr_vtable);
	CHECK(prim_pin(PRIM_GHASH, 5) == -1);
	/* The timed choice is one of them, and says so. */
	CHECK(prim_choose(NULL) == 0);
	prim_describe(d, sizeof(d));
	CHECK(strncmp(d, "chacha20=", 9) == 0 && strstr(d, " ec=m") != NULL);
	CHECK(candidate_gives_the_same_bytes(want));
	/* The pin's grammar is test_prim's. */
	CHECK(prim_pin(PRIM_AES_CTR, def.pick[PRIM_AES_CTR]) == 1 &&
	    prim_pin(PRIM_GHASH, def.pick[PRIM_GHASH]) == 1 &&
	    prim_pin(PRIM_EC, def.pick[PRIM_EC]) == 1);
	return 1;
}

static int
constant_time_compare(void)
{
	CHECK(ct_eq("abcd", "abcd", 4) == 1);
	CHECK(ct_eq("abcd", "abce", 4) == 0);
	CHECK(ct_eq("\x80", "\x00", 1) == 0);
	CHECK(ct_eq("\xff", "\xfe", 1) == 0);
	CHECK(ct_eq("x", "y", 0) == 1);
	return 1;
}

int
main(void)
{
	static const struct unit_test tests[] = {
		T(rfc8448_x25519_share_and_shared_secret),
		T(rfc8448_early_secret_and_derived),
		T(rfc8448_handshake_secrets_keys_and_ivs),
		T(rfc8448_server_finished_verify_data),
		T(rfc8448_master_and_application_secrets),
		T(rfc8448_client_finished_resumption_master_and_ticket_psk),
		T(rfc8448_server_flight_seals_to_the_rfc_record),
		T(rfc8448_client_finished_record_opens),
		T(rfc8448_application_records_in_sequence),
		T(rfc8448_resumption_binder),
		T(rfc8448_hello_retry_request_with_p256),
		T(transcript_hash_leaves_the_running_hash_alone),
		T(hrr_replaces_client_hello1_by_message_hash),
		T(key_update_secrets_match_python),
		T(aes256gcm_sha384_records_match_python),
		T(chacha20_poly1305_records_match_python),
		T(unknown_suite_is_refused),
		T(tampered_records_do_not_open),
		T(padding_is_stripped_and_zeros_in_content_kept),
		T(padding_is_stripped_at_every_word_offset),
		T(all_zero_plaintext_is_refused),
		T(sequence_number_changes_the_nonce),
		T(sequence_number_never_wraps),
		T(record_size_limits),
		T(ecdhe_shares_agree),
		T(x25519_refuses_small_order_and_bad_lengths),
		T(p256_refuses_points_off_the_curve_and_other_forms),
		T(openssl_rsa_pss_signatures_verify),
		T(pkcs1_v15_signature_is_refused),
		T(openssl_ecdsa_signatures_verify_with_the_curve_bound),
		T(our_signatures_verify_here_and_are_saved_for_openssl),
		T(signing_refuses_a_key_that_does_not_fit_the_scheme),
		T(pss_verify_refuses_malformed_encodings),
		T(pss_signs_with_a_1025_bit_key_for_any_salt),
		T(ecdsa_verify_binds_the_curve_to_the_hash),
		T(inner_plaintext_over_the_limit_is_overflow),
		T(tls12_aes128gcm_records_match_python),
		T(tls12_aes256gcm_records_match_python),
		T(tls12_chacha20_poly1305_records_match_python),
		T(tls12_records_round_trip_for_each_aead),
		T(tls12_flipped_bit_is_refused),
		T(tls12_gcm_explicit_nonce_is_the_sequence_number),
		T(tls12_gcm_open_takes_the_peers_explicit_nonce),
		T(every_primitive_candidate_gives_the_same_bytes),
		T(constant_time_compare),
	};

	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
